"""Board power and clocks, where NVML is present (pynvml, else nvidia-smi); None otherwise."""

import shutil
import subprocess
import threading


def _query_smi(fields, index):
    if shutil.which("nvidia-smi") is None:
        return None
    try:
        out = subprocess.run(["nvidia-smi", f"--id={index}", f"--query-gpu={fields}",
                              "--format=csv,noheader,nounits"], capture_output=True, text=True,
                             timeout=10, check=True).stdout.strip()
        return [float(v) for v in out.split(",")]
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


class Board:
    def __init__(self, index=0):
        self.index = index
        self.handle = None
        try:
            import pynvml
            pynvml.nvmlInit()
            self.nvml = pynvml
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        except Exception:       # no pynvml, no driver: fall back to nvidia-smi or nothing
            self.nvml = None

    def limits(self):
        """{"power_limit_w", "sm_clock_max_mhz", "memory_clock_max_mhz"}, the known ones."""
        if self.handle is not None:
            n = self.nvml
            return {"power_limit_w": n.nvmlDeviceGetEnforcedPowerLimit(self.handle) / 1000.0,
                    "sm_clock_max_mhz": n.nvmlDeviceGetMaxClockInfo(self.handle, n.NVML_CLOCK_SM),
                    "memory_clock_max_mhz": n.nvmlDeviceGetMaxClockInfo(self.handle,
                                                                        n.NVML_CLOCK_MEM)}
        values = _query_smi("power.limit,clocks.max.sm,clocks.max.mem", self.index)
        if values is None:
            return {}
        return dict(zip(("power_limit_w", "sm_clock_max_mhz", "memory_clock_max_mhz"), values))

    def sample(self):
        """(board power W, SM clock MHz) now, or None."""
        if self.handle is not None:
            n = self.nvml
            return (n.nvmlDeviceGetPowerUsage(self.handle) / 1000.0,
                    float(n.nvmlDeviceGetClockInfo(self.handle, n.NVML_CLOCK_SM)))
        values = _query_smi("power.draw,clocks.sm", self.index)
        return tuple(values) if values is not None else None


class Sampler:
    """Samples the board every @period seconds while a `with` block runs."""

    def __init__(self, board, period=0.02):
        self.board, self.period = board, period
        self.samples = []
        self._stop = threading.Event()

    def __enter__(self):
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self):
        while not self._stop.wait(self.period):
            s = self.board.sample()
            if s is None:
                return
            self.samples.append(s)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def means(self):
        if not self.samples:
            return {}
        n = len(self.samples)
        return {"board_power_w_mean": sum(s[0] for s in self.samples) / n,
                "sm_clock_mhz_mean": sum(s[1] for s in self.samples) / n}
