/*
 * A stand-in for Windows' bcryptprimitives.dll, for running the Windows
 * build under Wine 8 (Debian 12's), which lacks the DLL: Go's runtime
 * loads ProcessPrng from it at start and stops if it is missing. This
 * one forwards to RtlGenRandom (advapi32's SystemFunction036), which Wine
 * has. Test use only (cmd/ledger/wine_test.go); Windows 10 and later ship
 * the real DLL.
 */
#include <windows.h>
#include <ntsecapi.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!RtlGenRandom(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
