/*
 * SPDX-License-Identifier: GPL-2.0
 *
 * _CST preset "client": modelled on an Intel Core client part (Skylake
 * client, as listed in drivers/idle/intel_idle.c skl_cstates): C1, C1E, C6
 * and C10 with their exit latencies in microseconds. acpi_idle sets each
 * state's target residency to twice its latency, adds POLL as state 0, and
 * enters every state below with HLT (type 1, FFixedHW), which is what QEMU
 * under TCG can do. Power figures (mW, element 3) are illustrative.
 *
 * infra/acpi/gen-ssdt.sh replaces the CPU scopes marker with one Scope per
 * vCPU of the guest, each returning \_SB.HCST from its _CST method.
 */
DefinitionBlock ("", "SSDT", 2, "HORIZN", "CSTCLNT", 1)
{
    Scope (\_SB)
    {
        Name (HCST, Package ()
        {
            4,
            Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 2, 1000 },
            Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 10, 500 },
            Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 85, 200 },
            Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 890, 50 }
        })
    }

    /* @CPU_SCOPES@ */
}
