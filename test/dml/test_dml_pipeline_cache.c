/*
 * The persistent pipeline cache (README.md, "Environment variables", VKDML_PIPELINE_CACHE_DIR),
 * black-box: a device writes its cache file when it goes, with a header that names the device; the
 * next device loads it; a corrupt, short or foreign file is ignored with an INFO line and
 * rewritten; without the variable nothing is written; a directory that cannot be written to costs
 * a warning, never an error. Each test works in a temporary directory of its own and leaves
 * nothing behind.
 */
#include "dml/dml_rules_utils.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file's header as README.md describes it: 64 bytes, native byte order. */
struct cache_file_header
{
    char magic[8];                      /* "VKDMLPC\0" */
    uint32_t header_version;
    uint32_t vendor_id;
    uint32_t device_id;
    uint32_t driver_version;
    uint8_t pipeline_cache_uuid[16];
    uint64_t build_id;
    uint64_t data_size;
    uint64_t data_hash;
};

/* ---- What vkdml logged while a device lived ---- */

static char captured[8192];
static unsigned int captured_errors;

static void capture_sink(void *user_data, enum vkdml_log_level level, enum vkdml_log_source source,
        const char *function, const char *message)
{
    size_t used = strlen(captured);

    fprintf(stderr, "  [%d] %s: %s\n", (int)level, function, message);
    if (source == VKDML_LOG_SOURCE_VALIDATION || level == VKDML_LOG_ERR)
        ++captured_errors;
    snprintf(captured + used, sizeof(captured) - used, "%s\n", message);
}

/* A D3D12 and a DML device that compile ELEMENT_WISE_IDENTITY, then go; their INFO lines in
 * `captured`. Fails on any error or validation message. */
static void run_device(void)
{
    struct dml_tensor input, output;
    enum vkdml_log_level old_level;
    IDMLCompiledOperator *compiled;
    void *state;

    captured[0] = 0;
    captured_errors = 0;
    old_level = vkdml_get_log_level();
    vkdml_set_log_level(VKDML_LOG_INFO);
    vkdml_set_log_callback(capture_sink, NULL);
    assert_int_equal(dml_context_setup(&state), 0);
    dml_tensor_init_hello(&input);
    dml_tensor_init_hello(&output);
    compiled = dml_compile(((struct dml_context *)state)->dml,
            dml_create_identity(((struct dml_context *)state)->dml, &input, &output), DML_EXECUTION_FLAG_NONE);
    assert_int_equal(IDMLCompiledOperator_Release(compiled), 0);
    assert_int_equal(dml_context_teardown(&state), 0);
    vkdml_test_init_logging();
    vkdml_set_log_level(old_level);
    assert_int_equal(captured_errors, 0);
}

static void check_captured(const char *substring)
{
    if (!strstr(captured, substring))
        fail_msg("no log line contains \"%s\"; the lines were:\n%s", substring, captured);
}

/* ---- The temporary directory ---- */

static char dir[256];

static int dir_setup(void **state)
{
    const char *tmp = getenv("TMPDIR");

    snprintf(dir, sizeof(dir), "%s/vkdml-pipeline-cache-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return -1;
    setenv("VKDML_PIPELINE_CACHE_DIR", dir, 1);
    return vkdml_test_log_setup(state);
}

static int dir_teardown(void **state)
{
    struct dirent *entry;
    char path[512];
    DIR *d;

    unsetenv("VKDML_PIPELINE_CACHE_DIR");
    if ((d = opendir(dir)))
    {
        while ((entry = readdir(d)))
        {
            if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, ".."))
            {
                snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name);
                remove(path);
            }
        }
        closedir(d);
    }
    rmdir(dir);
    return vkdml_test_log_teardown(state);
}

/* The only file in the directory (no temporary file left over), or "" when it is empty. */
static const char *cache_file(void)
{
    static char path[512];
    struct dirent *entry;
    unsigned int count = 0;
    DIR *d;

    path[0] = 0;
    assert_non_null(d = opendir(dir));
    while ((entry = readdir(d)))
    {
        if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, ".."))
            continue;
        ++count;
        assert_true(!strncmp(entry->d_name, "vkdml-", 6));
        assert_non_null(strstr(entry->d_name, ".cache"));
        assert_null(strstr(entry->d_name, ".tmp"));
        snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name);
    }
    closedir(d);
    assert_true(count <= 1);
    return path;
}

static long file_size(const char *path)
{
    struct stat st;

    assert_int_equal(stat(path, &st), 0);
    return (long)st.st_size;
}

static void read_header(const char *path, struct cache_file_header *header)
{
    FILE *file = fopen(path, "rb");

    assert_non_null(file);
    assert_int_equal(fread(header, sizeof(*header), 1, file), 1);
    fclose(file);
}

static void write_header(const char *path, const struct cache_file_header *header)
{
    FILE *file = fopen(path, "r+b");

    assert_non_null(file);
    assert_int_equal(fwrite(header, sizeof(*header), 1, file), 1);
    assert_int_equal(fclose(file), 0);
}

/* A header of this build for the adapter the devices run on, and a size that matches the file. */
static void check_header(const char *path)
{
    struct vkdml_adapter_info info;
    struct cache_file_header header;
    int index = vkdml_select_adapter(NULL);

    assert_true(index >= 0);
    assert_int_equal(vkdml_get_adapter_info(index, &info, sizeof(info)), 0);
    assert_true(file_size(path) >= (long)sizeof(header));
    read_header(path, &header);
    assert_memory_equal(header.magic, "VKDMLPC", 8);
    assert_int_equal(header.header_version, 1);
    assert_int_equal(header.vendor_id, info.vendor_id);
    assert_int_equal(header.device_id, info.device_id);
    assert_int_equal(header.driver_version, info.driver_version);
    assert_int_equal(header.data_size, file_size(path) - (long)sizeof(header));
}

/* A device writes the file when it goes, and the next device loads it. */
static void test_written_and_loaded(void **state)
{
    struct cache_file_header header;
    char loaded[64];
    const char *path;

    run_device();
    check_captured("No pipeline cache file");
    check_captured("Wrote");
    path = cache_file();
    assert_true(*path);
    check_header(path);

    read_header(path, &header);
    run_device();
    snprintf(loaded, sizeof(loaded), "Loaded %" PRIu64 " bytes of pipeline cache", header.data_size);
    check_captured(loaded);
    check_captured(path);
    check_header(cache_file());
}

/* Ignored with an INFO line saying why, the device works, and the file is rewritten valid. */
static void check_ignored(const char *path, const char *reason)
{
    run_device();
    check_captured("Ignoring the pipeline cache file");
    check_captured(reason);
    check_header(path);
}

static void test_bad_files_ignored(void **state)
{
    struct cache_file_header header, good;
    const char *path;
    FILE *file;
    int byte;

    run_device();
    path = cache_file();
    read_header(path, &good);

    /* A flipped byte of the driver's data. */
    assert_true(good.data_size > 0);
    assert_non_null(file = fopen(path, "r+b"));
    assert_int_equal(fseek(file, -1, SEEK_END), 0);
    byte = fgetc(file);
    assert_int_equal(fseek(file, -1, SEEK_END), 0);
    assert_int_equal(fputc(byte ^ 0xff, file), byte ^ 0xff);
    assert_int_equal(fclose(file), 0);
    check_ignored(path, "corrupt");

    /* Shorter than a header. */
    assert_int_equal(truncate(path, 20), 0);
    check_ignored(path, "not a vkdml pipeline cache");

    /* Cut short inside the data. */
    assert_int_equal(truncate(path, file_size(path) - 1), 0);
    check_ignored(path, "truncated");

    /* Another build of vkdml, with other kernels. */
    header = good;
    header.build_id ^= 1;
    write_header(path, &header);
    check_ignored(path, "other kernels");

    /* Another driver version. */
    header = good;
    header.driver_version ^= 1;
    write_header(path, &header);
    check_ignored(path, "another driver");

    /* Another device. */
    header = good;
    header.device_id ^= 1;
    write_header(path, &header);
    check_ignored(path, "another device");
}

/* Without the variable nothing is read or written. */
static void test_nothing_without_variable(void **state)
{
    unsetenv("VKDML_PIPELINE_CACHE_DIR");
    run_device();
    assert_null(strstr(captured, "pipeline cache"));
    assert_string_equal(cache_file(), "");
}

/* A directory that does not exist: a warning when the file cannot be written, no error. */
static void test_unwritable_directory(void **state)
{
    char missing[300];

    snprintf(missing, sizeof(missing), "%s/missing", dir);
    setenv("VKDML_PIPELINE_CACHE_DIR", missing, 1);
    run_device();
    check_captured("Cannot write the pipeline cache file");
    assert_string_equal(cache_file(), "");
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_written_and_loaded, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_bad_files_ignored, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_nothing_without_variable, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_unwritable_directory, dir_setup, dir_teardown),
    };

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
