/* The one translation unit that defines the IID_IDML* constants, exported for C applications
 * (C++ uses __uuidof). Only DirectML's IIDs are defined here: D3D12's come from DirectX-Headers'
 * own GUID library, so DEFINE_GUID switches to its defining form after d3d12.h. */
#ifdef _WIN32
# include <d3d12.h>
#else
# include <wsl/winadapter.h>
# include <directx/d3d12.h>
#endif

#undef DEFINE_GUID
#define DEFINE_GUID(name, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8) \
    EXTERN_C VKDML_DML_API const GUID name; \
    VKDML_DML_API const GUID name = {l, w1, w2, {b1, b2, b3, b4, b5, b6, b7, b8}}

#include "DirectML.h"
