"""Machine facts for RESULTS.md: parsed from /proc files, with fallbacks where they are missing."""

from benchmarks import machine


def test_cpu_model_and_memory_come_from_proc_files(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nvendor_id\t: X\nmodel name\t: Test CPU @ 3.0GHz\n")
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       16777216 kB\nMemFree: 1 kB\n")
    assert machine.cpu_model(cpuinfo) == "Test CPU @ 3.0GHz"
    assert machine.memory_gb(meminfo) == 16.0
    assert machine.memory_gb(tmp_path / "absent") is None
    assert machine.cpu_model(tmp_path / "absent")  # falls back to the platform module, never empty


def test_machine_info_names_the_libraries_and_the_interpreter_speed():
    info = machine.machine_info()
    assert {"date", "cpu", "cores", "python", "numpy", "duckdb", "empty Python loop"} <= set(info)
    assert info["numpy"][0].isdigit() and info["empty Python loop"].endswith("ns/iteration")
    assert machine.library_version("surely-not-a-package-name") == "not installed"
