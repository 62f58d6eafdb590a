/**
 * Resident memory of a process tree from /proc (Linux only): VmRSS of a process and all its
 * descendants, sampled on a timer to find the peak.
 * @module
 */
import { readFileSync, readdirSync } from "node:fs";

/**
 * The pid and every descendant pid (via /proc/<pid>/task/<tid>/children).
 * @param {number} pid
 * @returns {number[]}
 */
export function processTree(pid) {
  const found = [];
  const queue = [pid];
  while (queue.length > 0 && found.length < 1000) {
    const current = queue.shift();
    found.push(current);
    let tasks = [];
    try {
      tasks = readdirSync(`/proc/${current}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        const children = readFileSync(`/proc/${current}/task/${tid}/children`, "utf8").trim();
        if (children) for (const child of children.split(/\s+/)) queue.push(Number(child));
      } catch {
        // The task ended while we looked.
      }
    }
  }
  return found;
}

/**
 * VmRSS of one process in bytes (0 when it is gone).
 * @param {number} pid
 * @returns {number}
 */
export function rssBytes(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Summed VmRSS of the process tree rooted at `pid`, in bytes.
 * @param {number} pid
 * @returns {{ bytes: number, processes: number }}
 */
export function treeRss(pid) {
  const pids = processTree(pid);
  let bytes = 0;
  for (const member of pids) bytes += rssBytes(member);
  return { bytes, processes: pids.length };
}

/**
 * Samples the tree RSS every `intervalMs` and keeps the peak; `mark()` starts a new phase so each
 * phase has its own peak.
 */
export class PeakRssSampler {
  /**
   * @param {number} pid root of the tree
   * @param {number} [intervalMs]
   */
  constructor(pid, intervalMs = 20) {
    this.pid = pid;
    this.peak = 0;
    this.maxProcesses = 0;
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.sample();
  }

  /** Takes one sample now. */
  sample() {
    const { bytes, processes } = treeRss(this.pid);
    if (bytes > this.peak) this.peak = bytes;
    if (processes > this.maxProcesses) this.maxProcesses = processes;
  }

  /**
   * Ends the current phase: returns its peak (after a last sample) and starts the next phase.
   * @returns {{ peakBytes: number, processes: number }}
   */
  mark() {
    this.sample();
    const result = { peakBytes: this.peak, processes: this.maxProcesses };
    this.peak = 0;
    this.maxProcesses = 0;
    return result;
  }

  /** Stops sampling. */
  stop() {
    clearInterval(this.timer);
  }
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on Linux). */
const ticksPerSecond = 100;

/**
 * CPU time (user + system) used so far by one process, in ms.
 * @param {number} pid
 * @returns {number}
 */
export function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / ticksPerSecond;
  } catch {
    return 0;
  }
}

/**
 * CPU time used so far by the process tree rooted at `pid`, in ms (10 ms resolution).
 * @param {number} pid
 * @returns {number}
 */
export function treeCpuMs(pid) {
  let total = 0;
  for (const member of processTree(pid)) total += cpuMs(member);
  return total;
}
