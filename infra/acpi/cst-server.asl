/*
 * SPDX-License-Identifier: GPL-2.0
 *
 * _CST preset "server": modelled on an Intel Xeon server part (Skylake-SP,
 * skx_cstates in drivers/idle/intel_idle.c): C1, C1E and C6 with their exit
 * latencies in microseconds (2, 10, 133). acpi_idle sets each target
 * residency to twice the latency (intel_idle's are 2, 20, 600), adds POLL as
 * state 0, and enters each state with HLT (type 1, FFixedHW). Power figures
 * (mW) are illustrative.
 *
 * infra/acpi/gen-ssdt.sh replaces the CPU scopes marker with one Scope per
 * vCPU of the guest, each returning \_SB.HCST from its _CST method.
 */
DefinitionBlock ("", "SSDT", 2, "HORIZN", "CSTSRVR", 1)
{
    Scope (\_SB)
    {
        Name (HCST, Package ()
        {
            3,
            Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 2, 1500 },
            Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 10, 1000 },
            Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 133, 100 }
        })
    }

    /* @CPU_SCOPES@ */
}
