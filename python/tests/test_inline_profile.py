"""scripts/inline-profile.py: its reading of callgrind's per-instruction output and the tree
of inlined functions it builds (the run itself needs valgrind, and is not tested here)."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("inline_profile", ROOT / "scripts" / "inline-profile.py")
inline_profile = importlib.util.module_from_spec(spec)
spec.loader.exec_module(inline_profile)

# Two objects; in the engine's, relative positions (+n, -n, *), a call whose inclusive cost
# line must not count as the calling instruction's own, a name given once and then reused
# by number, and a trailing event left out (0).
CALLGRIND = """\
# callgrind format
version: 1
positions: instr line
events: Ir DLmr

ob=(1) /usr/lib/libc.so.6
fn=(1) memcpy
0x100 5 1000 7

ob=(2) /x/_engine.so
fn=(2) handle_until
0x2000 10 3 1
+4 * 5
calls=2 0x3000 20
* * 900 40
+2 11 7
ob=(1)
fn=(1)
0x104 5 50 2
ob=(2)
fn=(3) service
0x3000 20 9
-8 21 4 2
"""


def test_each_instruction_keeps_its_own_cost_in_the_object_asked_for():
    ir = inline_profile.self_costs(CALLGRIND.splitlines(), "_engine.so", "Ir")
    assert ir == {0x2000: 3, 0x2004: 5, 0x2006: 7, 0x3000: 9, 0x2FF8: 4}
    misses = inline_profile.self_costs(CALLGRIND.splitlines(), "_engine.so", "DLmr")
    assert misses == {0x2000: 1, 0x2FF8: 2}


def test_the_tree_adds_each_instruction_to_every_function_on_its_inline_chain():
    costs = {1: 10, 2: 20, 3: 5, 4: 1}
    chains = {
        1: ["loop", "enqueue", "offer"],
        2: ["loop", "enqueue"],
        3: ["loop", "deliver", "deliver", "on_ack"],
        4: ["service"],
    }
    t = inline_profile.tree(costs, chains)
    assert t["loop"][0] == 35 and t["service"][0] == 1
    assert t["loop"][1]["enqueue"][0] == 30
    assert t["loop"][1]["enqueue"][1]["offer"][0] == 10
    # An inlined function that calls itself counts once per instruction.
    assert t["loop"][1]["deliver"][0] == 5
    assert t["loop"][1]["deliver"][1]["on_ack"][0] == 5


def test_names_lose_generic_arguments_and_crate_prefixes():
    name = "<rampup_sim::engine::EventQueue<E>>::replace_first"
    assert inline_profile.short_name(name) == "replace_first"
    assert inline_profile.short_name("rampup_sim::engine::Heap<E>::sift_down") == "engine::Heap::sift_down"
    assert inline_profile.short_name("rampup_sim::world::ahead::<impl rampup_sim::world::World>::receive_ahead") == "world::ahead::receive_ahead"


# `perf script -F ip,dso --show-mmap-events`: libc and the engine mapped (the engine at
# 0x7f00_0000_0000 from file offset 0x6e000), then samples in both.
PERF_SCRIPT = """\
PERF_RECORD_MMAP2 1/1: [0x7f4b057e0000(0x156000) @ 0x26000 fe:00 1 0]: r-xp /usr/lib/libc.so.6
PERF_RECORD_MMAP2 1/1: [0x7f0000000000(0x217000) @ 0x6e000 fe:00 2 3]: r-xp /x/_engine.so
     7f0000000010 (/x/_engine.so)
     7f4b057e3b52 (/usr/lib/libc.so.6)
     7f0000000010 (/x/_engine.so)
     7f0000000200 (/x/_engine.so)
"""


def test_perf_samples_become_addresses_of_the_engine_file():
    samples = inline_profile.perf_samples(PERF_SCRIPT.splitlines(), "_engine.so", 0x1000)
    # The address less the load address, plus the file offset and the segment's shift.
    assert samples == {0x6F010: 2, 0x6F200: 1}
    # Without the engine's mapping, its samples cannot be placed: none are counted.
    assert inline_profile.perf_samples(PERF_SCRIPT.splitlines()[2:], "_engine.so", 0) == {}
