/* vkdml-info: the Vulkan devices vkdml sees, what each offers, and which one vkdml would use. */

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tool_options.h"
#include "vkdml.h"

static const char *type_name(enum vkdml_adapter_type type)
{
    switch (type)
    {
        case VKDML_ADAPTER_TYPE_INTEGRATED_GPU: return "integrated GPU";
        case VKDML_ADAPTER_TYPE_DISCRETE_GPU: return "discrete GPU";
        case VKDML_ADAPTER_TYPE_VIRTUAL_GPU: return "virtual GPU";
        case VKDML_ADAPTER_TYPE_CPU: return "CPU";
        default: return "other";
    }
}

static void print_uuid(const uint8_t uuid[16])
{
    unsigned int i;

    for (i = 0; i < 16; ++i)
        printf("%02x%s", uuid[i], i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
}

/* driverVersion is vendor-encoded: NVIDIA 10.8.8.6 bits, Intel on Windows 18.14 bits, else Vulkan's 10.10.12. */
static void print_driver_version(const struct vkdml_adapter_info *info)
{
    uint32_t v = info->driver_version;

    if (info->vendor_id == 0x10de)
        printf("%u.%u.%u.%u", v >> 22, (v >> 14) & 0xff, (v >> 6) & 0xff, v & 0x3f);
    else if (info->vendor_id == 0x8086 && !strstr(info->driver_name, "Mesa"))
        printf("%u.%u", v >> 14, v & 0x3fff);
    else
        printf("%u.%u.%u", v >> 22, (v >> 12) & 0x3ff, v & 0xfff);
    printf(" (0x%08x)", v);
}

static void print_memory(const struct vkdml_adapter_info *info)
{
    printf("      memory:   %" PRIu64 " MiB device-local", info->device_local_memory >> 20);
    if (info->has_memory_budget)
        printf("; budget %" PRIu64 " MiB, %" PRIu64 " MiB in use by this process (VK_EXT_memory_budget)\n",
                info->memory_budget >> 20, info->memory_usage >> 20);
    else
        printf("; no budget query (no VK_EXT_memory_budget)\n");
}

static void print_adapter(const struct vkdml_adapter_info *info, int selected)
{
    printf("%s[%u] %s\n", selected ? "* " : "  ", info->index, info->name);
    printf("      type:     %s%s\n", type_name(info->type), info->is_software ? " (software)" : "");
    printf("      vendor:   0x%04x, device 0x%04x\n", info->vendor_id, info->device_id);
    printf("      driver:   %s%s%s, version ", info->driver_name[0] ? info->driver_name : "(unknown)",
            info->driver_info[0] ? ", " : "", info->driver_info);
    print_driver_version(info);
    printf("\n      Vulkan:   %u.%u.%u\n", info->api_version >> 22, (info->api_version >> 12) & 0x3ff,
            info->api_version & 0xfff);
    print_memory(info);
    printf("      uuid:     ");
    print_uuid(info->device_uuid);
    printf("\n      usable:   %s%s\n", info->is_supported ? "yes" : "no: ", info->is_supported ? "" : info->unsupported_reason);
}

static void print_usage(FILE *out)
{
    fprintf(out, "usage: vkdml-info [--device SELECTOR] [--operators] [--help] [--version]\n"
            "Lists the Vulkan devices; '*' marks the one vkdml uses. SELECTOR is an index, a UUID or a\n"
            "name substring (default: the VKDML_DEVICE environment variable, else discrete > integrated > CPU).\n"
            "--operators prints the support matrix (operator x data type) on that device.\n");
}

/* Columns of the support matrix: DML_TENSOR_DATA_TYPE values and short names. */
static const struct
{
    uint32_t type;
    const char *name;
}
columns[] =
{
    {1, "F32"}, {2, "F16"}, {9, "F64"}, {3, "U32"}, {4, "U16"}, {5, "U8"},
    {6, "I32"}, {7, "I16"}, {8, "I8"}, {10, "U64"}, {11, "I64"},
};

static void print_operator(const struct vkdml_operator_support *op)
{
    unsigned int i;

    printf("  %-40s %x_%x ", op->name, op->feature_level >> 12, (op->feature_level >> 8) & 0xf);
    if (!op->implemented)
    {
        printf(" not implemented\n");
        return;
    }
    if (!op->data_types)
    {
        printf(" implemented (data types not recorded)\n");
        return;
    }
    for (i = 0; i < sizeof(columns) / sizeof(columns[0]); ++i)
    {
        uint32_t bit = 1u << columns[i].type;

        printf(" %3s", op->device_data_types & bit ? "y" : op->data_types & bit ? "-" : ".");
    }
    printf("\n");
}

/* One line per DML_OPERATOR_TYPE; with `matrix` false, only the count. */
static int print_operators(int adapter, bool matrix)
{
    struct vkdml_operator_support support[256];
    uint32_t count = vkdml_get_operator_type_count(), implemented = 0, t;
    unsigned int i;

    if (count > sizeof(support) / sizeof(support[0])
            || vkdml_get_operator_support(adapter, count, support, sizeof(support[0])))
        return 1;
    for (t = 1; t < count; ++t)
        implemented += support[t].implemented != 0;
    printf("Operators: %u of %u implemented%s\n", implemented, count - 1,
            matrix ? " (y: runs on this device; -: implemented, the device lacks a feature it needs;"
            " .: DirectML does not list the type)" : " (--operators lists them)");
    if (!matrix)
        return 0;
    printf("  %-40s FL  ", "");
    for (i = 0; i < sizeof(columns) / sizeof(columns[0]); ++i)
        printf(" %3s", columns[i].name);
    printf("\n");
    for (t = 1; t < count; ++t)
        print_operator(&support[t]);
    return 0;
}

int main(int argc, char **argv)
{
    const char *selector = NULL;
    bool operators = false;
    int count, selected, status, i;

    for (i = 1; i < argc; ++i)
    {
        if (!strcmp(argv[i], "--device") && i + 1 < argc)
            selector = argv[++i];
        else if (!strcmp(argv[i], "--operators"))
            operators = true;
        else if ((status = tool_standard_option(argv[i], "vkdml-info", print_usage)) >= 0)
            return status;
        else
            return tool_usage_error(print_usage);
    }

    printf("vkdml %s\n", vkdml_get_version_string());
    if ((count = vkdml_get_adapter_count()) < 0)
    {
        fprintf(stderr, "vkdml-info: Vulkan is not available (see the message above).\n");
        return 1;
    }
    printf("%d Vulkan device%s:\n", count, count == 1 ? "" : "s");
    selected = vkdml_select_adapter(selector);
    for (i = 0; i < count; ++i)
    {
        struct vkdml_adapter_info info;

        if (vkdml_get_adapter_info(i, &info, sizeof(info)))
            return 1;
        print_adapter(&info, i == selected);
    }
    if (selected < 0)
    {
        printf("No device vkdml can use.\n");
        return 1;
    }
    printf("vkdml would use device %d.\n", selected);
    return print_operators(selected, operators);
}
