import { expect, test } from "bun:test";
import { availableMemoryMb, cgroupLimitBytes, memAvailableBytes, vmStatAvailableBytes } from "../../src/judge/memory.ts";

test("MemAvailable is read from /proc/meminfo", () => {
  expect(memAvailableBytes("MemTotal:       24576000 kB\nMemFree:  100 kB\nMemAvailable:   2048000 kB\n")).toBe(2048000 * 1024);
  expect(memAvailableBytes("MemTotal: 1 kB\n")).toBeUndefined();
});

test("a cgroup limit of max, or v1's huge number, is no limit", () => {
  expect(cgroupLimitBytes("max\n")).toBeUndefined();
  expect(cgroupLimitBytes("9223372036854771712\n")).toBeUndefined();
  expect(cgroupLimitBytes("536870912\n")).toBe(536870912);
  expect(cgroupLimitBytes(undefined)).toBeUndefined();
});

test("vm_stat's free, inactive, purgeable and speculative pages count", () => {
  const output =
    "Mach Virtual Memory Statistics: (page size of 16384 bytes)\nPages free:      1000.\nPages active:    5000.\nPages inactive:  2000.\nPages speculative: 100.\nPages purgeable: 50.\n";
  expect(vmStatAvailableBytes(output)).toBe((1000 + 2000 + 100 + 50) * 16384);
  expect(vmStatAvailableBytes("nothing")).toBeUndefined();
});

test("on this machine memory is measured", () => {
  if (process.platform !== "linux") return;
  const available = availableMemoryMb();
  expect(available).toBeGreaterThan(0);
});
