/*
 * Interface of kernels_glsl/scan.comp (DML_OPERATOR_CUMULATIVE_SUMMATION and
 * DML_OPERATOR_CUMULATIVE_PRODUCT), shared by C (backend_vk/ops/cumulative.c) and GLSL.
 *
 * The tensors are seen as lines along the scanned axis: LINES lines (the other dimensions, merged
 * where their strides allow, SCAN_MAX_KEPT at most, in the last slots; the leading ones have size
 * 1 and stride 0) of LENGTH elements, AXIS strides apart. Scan position p of a line is axis index
 * p, or LENGTH - 1 - p when REVERSE (DML_AXIS_DIRECTION_DECREASING).
 *
 * Two algorithms (docs/kernels.md, "Cumulative operators"):
 *   SCAN_ALGORITHM_ROW     a workgroup per line (or per tile of a line): subgroup scans over
 *                          coalesced loads, shared memory for the subgroup totals, a carry between
 *                          chunks of SCAN_ITEMS groups of VECTOR positions per invocation.
 *   SCAN_ALGORITHM_COLUMN  a workgroup per strip of ACROSS x VECTOR neighbouring lines (or tile):
 *                          ACROSS invocations across the strip, the others (ALONG) along the axis,
 *                          each scanning SCAN_COLUMN_ITEMS consecutive positions of a chunk; shared memory
 *                          joins the ALONG parts of a chunk.
 * VECTOR > 1: each access moves VECTOR elements, 16 aligned bytes (8 for FLOAT16 columns; cumulative.c
 * checks the strides and offsets): along the axis (ROW, axis stride 1) or across VECTOR
 * neighbouring lines (COLUMN).
 * A line may be cut into TILES tiles of TILE_LENGTH positions, so that more workgroups share a few
 * long lines: then a first dispatch (PASS = SCAN_PASS_TOTALS) writes each tile's total into the
 * temporary resource (uvec2 records: row [line][tile], column [tile][line]) and the second (PASS =
 * SCAN_PASS_SCAN) starts each tile from the totals of the tiles before it, in order: the result
 * is the same on every run.
 */
#ifndef VKDML_SCAN_INTERFACE_H
#define VKDML_SCAN_INTERFACE_H

#define SCAN_MAX_KEPT 7                 /* rank 8 less the scanned axis */
#define SCAN_ITEMS 8                    /* values per invocation and chunk (SCAN_ALGORITHM_ROW) */
#define SCAN_MAX_VECTOR 8               /* elements of a 16-byte access (FLOAT16) */
#define SCAN_VECTOR_BYTES 16
/* SCAN_ALGORITHM_COLUMN: positions per invocation and chunk, and elements per access at most
 * (8 bytes for FLOAT16): 64 values in registers. */
#define SCAN_COLUMN_ITEMS 16
#define SCAN_COLUMN_MAX_VECTOR 4

#define SCAN_ALGORITHM_ROW 0
#define SCAN_ALGORITHM_COLUMN 1

#define SCAN_PASS_SCAN 0
#define SCAN_PASS_TOTALS 1

/* Specialization constant ids, each derived from the one before. */
#define SCAN_SPEC_ALGORITHM 0
#define SCAN_SPEC_PASS                  (SCAN_SPEC_ALGORITHM + 1)
#define SCAN_SPEC_THREADS               (SCAN_SPEC_PASS + 1)            /* local_size_x */
#define SCAN_SPEC_TYPE                  (SCAN_SPEC_THREADS + 1)         /* DML_TENSOR_DATA_TYPE of both tensors */
#define SCAN_SPEC_PRODUCT               (SCAN_SPEC_TYPE + 1)            /* 1: product; 0: sum */
#define SCAN_SPEC_EXCLUSIVE             (SCAN_SPEC_PRODUCT + 1)
#define SCAN_SPEC_REVERSE               (SCAN_SPEC_EXCLUSIVE + 1)
#define SCAN_SPEC_LENGTH                (SCAN_SPEC_REVERSE + 1)
#define SCAN_SPEC_AXIS_STRIDES          (SCAN_SPEC_LENGTH + 1)          /* input, output */
#define SCAN_SPEC_LINES                 (SCAN_SPEC_AXIS_STRIDES + 2)
#define SCAN_SPEC_TILES                 (SCAN_SPEC_LINES + 1)
#define SCAN_SPEC_TILE_LENGTH           (SCAN_SPEC_TILES + 1)
#define SCAN_SPEC_VECTOR                (SCAN_SPEC_TILE_LENGTH + 1)     /* elements per access: 1 or 16 bytes' */
#define SCAN_SPEC_ACROSS                (SCAN_SPEC_VECTOR + 1)          /* COLUMN: invocations across the strip */
#define SCAN_SPEC_KEPT_SIZES            (SCAN_SPEC_ACROSS + 1)          /* SCAN_MAX_KEPT */
#define SCAN_SPEC_IN_KEPT_STRIDES       (SCAN_SPEC_KEPT_SIZES + SCAN_MAX_KEPT)
#define SCAN_SPEC_OUT_KEPT_STRIDES      (SCAN_SPEC_IN_KEPT_STRIDES + SCAN_MAX_KEPT)
/* Locations: descriptor slot, then the byte offset in the binding as low, high words. */
#define SCAN_SPEC_IN_LOCATION           (SCAN_SPEC_OUT_KEPT_STRIDES + SCAN_MAX_KEPT)
#define SCAN_SPEC_OUT_LOCATION          (SCAN_SPEC_IN_LOCATION + 3)
#define SCAN_SPEC_TOTALS_LOCATION       (SCAN_SPEC_OUT_LOCATION + 3)    /* the tiles' totals (TILES > 1) */
#define SCAN_SPEC_COUNT                 (SCAN_SPEC_TOTALS_LOCATION + 3)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); nothing else. */
layout(push_constant, std430) uniform ScanPush
{
    uvec2 table;
} push;

#endif

#endif /* VKDML_SCAN_INTERFACE_H */
