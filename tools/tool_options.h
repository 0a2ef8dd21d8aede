/*
 * The command-line conventions every vkdml tool follows (README.md, "Using it"): --help or -h prints
 * the usage to stdout and exits 0; --version prints "NAME VERSION" and exits 0; any other bad
 * command line prints the usage to stderr and exits 2. Header-only, so each tool stays one program.
 */
#ifndef VKDML_TOOL_OPTIONS_H
#define VKDML_TOOL_OPTIONS_H

#include <stdio.h>
#include <string.h>

#include "vkdml.h"

/* Writes the tool's usage text to `out`. */
typedef void (*tool_usage_printer)(FILE *out);

/* The exit status after --help, -h or --version has been answered, or -1 when `arg` is none of them. */
static inline int tool_standard_option(const char *arg, const char *name, tool_usage_printer print_usage)
{
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
    {
        print_usage(stdout);
        return 0;
    }
    if (!strcmp(arg, "--version"))
    {
        printf("%s %s\n", name, vkdml_get_version_string());
        return 0;
    }
    return -1;
}

/* A bad command line: the usage on stderr, and the exit status 2. */
static inline int tool_usage_error(tool_usage_printer print_usage)
{
    print_usage(stderr);
    return 2;
}

#endif /* VKDML_TOOL_OPTIONS_H */
