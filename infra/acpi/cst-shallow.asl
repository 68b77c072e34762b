/*
 * SPDX-License-Identifier: GPL-2.0
 *
 * _CST preset "shallow": two shallow states only, as on parts or
 * firmware that expose just C1 and C1E (latencies of skl_cstates in
 * drivers/idle/intel_idle.c: 2 and 10 us). acpi_idle adds POLL as state 0
 * and enters both with HLT (type 1, FFixedHW). Power figures (mW) are
 * illustrative.
 *
 * infra/acpi/gen-ssdt.sh replaces the CPU scopes marker with one Scope per
 * vCPU of the guest, each returning \_SB.HCST from its _CST method.
 */
DefinitionBlock ("", "SSDT", 2, "HORIZN", "CSTSHLW", 1)
{
    Scope (\_SB)
    {
        Name (HCST, Package ()
        {
            2,
            Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 2, 1000 },
            Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 10, 600 }
        })
    }

    /* @CPU_SCOPES@ */
}
