/* vkdml-info: the Vulkan devices vkdml sees, what each offers, and which one vkdml would use. */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

static void print_adapter(const struct vkdml_adapter_info *info, int selected)
{
    printf("%s[%u] %s\n", selected ? "* " : "  ", info->index, info->name);
    printf("      type:     %s%s\n", type_name(info->type), info->is_software ? " (software)" : "");
    printf("      vendor:   0x%04x, device 0x%04x\n", info->vendor_id, info->device_id);
    printf("      driver:   %s%s%s\n", info->driver_name[0] ? info->driver_name : "(unknown)",
            info->driver_info[0] ? ", " : "", info->driver_info);
    printf("      Vulkan:   %u.%u.%u\n", info->api_version >> 22, (info->api_version >> 12) & 0x3ff,
            info->api_version & 0xfff);
    printf("      memory:   %" PRIu64 " MiB device-local\n", info->device_local_memory >> 20);
    printf("      uuid:     ");
    print_uuid(info->device_uuid);
    printf("\n      usable:   %s%s\n", info->is_supported ? "yes" : "no: ", info->is_supported ? "" : info->unsupported_reason);
}

static int usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [--device SELECTOR]\n"
            "Lists the Vulkan devices; '*' marks the one vkdml uses. SELECTOR is an index, a UUID or a\n"
            "name substring (default: the VKDML_DEVICE environment variable, else discrete > integrated > CPU).\n",
            argv0);
    return 2;
}

int main(int argc, char **argv)
{
    const char *selector = NULL;
    int count, selected, i;

    for (i = 1; i < argc; ++i)
    {
        if (!strcmp(argv[i], "--device") && i + 1 < argc)
            selector = argv[++i];
        else
            return usage(argv[0]);
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
    return 0;
}
