/*
 * Windows builds only: the D3D12 IIDs, defined from DirectX-Headers' d3d12.h. On Linux they come
 * from DirectX-Headers' own libDirectX-Guids; Debian has no mingw build of it and mingw-w64's
 * libuuid has no D3D12 IIDs. mingw's DEFINE_GUID makes them selectany, so an application unit that
 * defines INITGUID too links fine. Linked into the library and the tests, never exported.
 */
#define INITGUID
#include <windows.h>
#include <d3d12.h>
