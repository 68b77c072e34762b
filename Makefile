# SPDX-License-Identifier: GPL-2.0
#
# horizon: a cpuidle governor and idle-loop rework for Linux 6.12.
# The kernel tree and every build live in $(HORIZON_CACHE), never here.

export HORIZON_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/horizon
INFRA := infra

.PHONY: help deps prepare kernelversion kernel kunit checkpatch selftests \
	test run shell apply bench guest-bench record selftests-all series check-series soak \
	mutants clean

help:
	@echo "make run            build, boot and compare horizon, menu and teo in QEMU"
	@echo "make test           every test suite; ends with 'N passed, N failed'"
	@echo "make prepare        extract the base tree into $(HORIZON_CACHE)/linux and apply the project"
	@echo "make kernelversion  print the base kernel version"
	@echo "make kernel         build the QEMU boot kernel"
	@echo "make kunit          run the KUnit suite"
	@echo "make checkpatch     checkpatch.pl --strict over the project"
	@echo "make bench          replay benchmark: horizon against the oracle and against menu"
	@echo "                    and teo of this tree and of PEERS (default ../shared/peers/linux-7.1"
	@echo "                    if present; PEERS= for none); TRACES=DIR adds recorded traces;"
	@echo "                    HW_TRACES=DIR recordings of real hardware (default"
	@echo "                    ../shared/hw-traces if present), converted and held out"
	@echo "make guest-bench    build a kernel with mainline's menu and teo of PEERS (default"
	@echo "                    ../shared/peers/linux-7.1) as menu71 and teo71 and compare them"
	@echo "                    in QEMU with horizon, menu and teo; writes bench/guest.txt"
	@echo "make record         record a replay trace from the QEMU guest (on a host, as root:"
	@echo "                    tools/power/cpuidle-replay/record-host.sh, see its README.rst)"
	@echo "make selftests      boot and run the cpuidle kselftests"
	@echo "make selftests-all  the kselftests once per shipped _CST preset"
	@echo "make soak           the debug kernel (KASAN, UBSAN, lockdep) soaked SOAK_S s (300) per preset"
	@echo "make mutants        apply small defects one at a time; each must fail a test"
	@echo "                    (MUTANTS=\"NAME...\" for some; infra/mutants.py lists them)"
	@echo "make mutants-auto   mutants derived from horizon.c and the tick-internal.h helpers,"
	@echo "                    run against the user-space KUnit build; a score per file"
	@echo "                    and function, every survivor"
	@echo "                    (MUTANTS_AUTO_SAMPLE=N for a fixed sample of N)"
	@echo "make mutants-kernel the mutants of the tick-sched, idle, cpuidle and sysfs lines,"
	@echo "                    each in a rebuilt boot kernel with the kselftests (minutes"
	@echo "                    a mutant; MUTANTS_KERNEL_SAMPLE=N for a fixed sample of N)"
	@echo "make ukunit         the horizon and tick-sched-net KUnit suites in user space,"
	@echo "                    HZ=250 and 1000, each case in its own process (seconds)"
	@echo "make shell          boot the guest to a shell"
	@echo "make apply TREE=DIR apply the project to your own 6.12 tree"
	@echo "make series         write the four patch series (git format-patch) to"
	@echo "                    \$$HORIZON_CACHE/series/N-NAME/, signed by SIGNOFF or git config"
	@echo "make check-series   identity, then git am each series on the base, checkpatch,"
	@echo "                    MAINTAINERS, kernel-doc, rst, build every step, sparse,"
	@echo "                    the bots' builds (i386 -Os, KUnit as modules, arm LLVM);"
	@echo "                    infra/check-series.sh bots for the fast checks and those only"
	@echo "make readme         write the figures of README.md and HACKING.md from bench/*.txt"
	@echo "                    and the cache's latest make run and make test results"
	@echo "make clean          remove build output, keep the extracted tree and ccache"
	@echo "Variables: HORIZON_CACHE, HORIZON_PRESET (client), HORIZON_SMP (4), HORIZON_GOVERNOR (horizon)"
	@echo "           PEERS (kernel trees, absolute or relative to the repo), PEERS_NAME (origin"
	@echo "           of a single PEERS tree with no version in it), TRACES (dirs of *.trace files)"

deps:
	@$(INFRA)/deps.sh

prepare: deps
	@$(INFRA)/prepare.sh

kernelversion: prepare
	@$(MAKE) -s -C $(HORIZON_CACHE)/linux kernelversion

kernel: prepare
	@$(INFRA)/build-kernel.sh

kunit: prepare
	@$(INFRA)/kunit.sh

checkpatch: prepare
	@$(INFRA)/checkpatch.sh

bench: prepare
	@$(INFRA)/replay.sh bench

guest-bench: prepare
	@$(INFRA)/guest-bench.sh

record: prepare
	@$(INFRA)/record.sh

selftests: kernel
	@$(INFRA)/qemu.sh test

apply:
	@$(INFRA)/apply-to.sh "$(TREE)"

selftests-all: prepare
	@$(INFRA)/selftests-all.sh

soak: prepare
	@$(INFRA)/soak.sh

series: prepare
	@$(INFRA)/check-series.sh series

check-series: prepare
	@$(INFRA)/check-series.sh full

mutants: prepare
	@python3 $(INFRA)/mutants.py $(MUTANTS)

.PHONY: ukunit mutants-auto mutants-kernel

mutants-auto:
	@python3 $(INFRA)/mutants_auto.py $(if $(MUTANTS_AUTO_SAMPLE),--sample $(MUTANTS_AUTO_SAMPLE))

mutants-kernel: prepare
	@python3 $(INFRA)/mutants_auto.py --kernel $(if $(MUTANTS_KERNEL_SAMPLE),--sample $(MUTANTS_KERNEL_SAMPLE))

ukunit:
	@$(INFRA)/ukunit/check.sh "$(HORIZON_CACHE)/ukunit"

shell: kernel
	@$(INFRA)/qemu.sh shell

test:
	@$(INFRA)/test.sh

run:
	@$(INFRA)/run.sh

.PHONY: readme
readme:
	@python3 $(INFRA)/readme-figures.py

clean:
	rm -rf $(HORIZON_CACHE)/boot $(HORIZON_CACHE)/boot-debug $(HORIZON_CACHE)/kunit $(HORIZON_CACHE)/kselftest \
		$(HORIZON_CACHE)/initramfs* $(HORIZON_CACHE)/acpi $(HORIZON_CACHE)/results \
		$(HORIZON_CACHE)/replay $(HORIZON_CACHE)/traces $(HORIZON_CACHE)/bench \
		$(HORIZON_CACHE)/series $(HORIZON_CACHE)/check/boot $(HORIZON_CACHE)/compare
