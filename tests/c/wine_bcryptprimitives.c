/*
 * A stand-in bcryptprimitives.dll for the Windows runs under wine only.
 *
 * The Rust standard library (Windows 10 and later) takes its random bytes
 * from ProcessPrng in bcryptprimitives.dll, which every Windows 10 and 11
 * has but wine 8.0 (Debian 12) does not, so no Rust DLL loads there. The
 * cross-platform check builds this file into bcryptprimitives.dll beside
 * its master executable (the loader looks in the executable's folder
 * first); it answers ProcessPrng with RtlGenRandom (advapi32's
 * SystemFunction036). It never goes into an FMU.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
