import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** What tests need of `/proc/<pid>/stat` (Linux). */
export interface ProcessStat {
  /** One letter: R running, S sleeping, Z zombie, … */
  state: string;
  parent: number;
  group: number;
}

/** The state, parent and process group of a process; undefined when it is gone. */
export function processStat(pid: number): ProcessStat | undefined {
  const stat = readProcFile(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // The fields after the command name (which may hold spaces and parentheses): state, ppid, pgrp, …
  const [state = "", parent, group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state, parent: Number(parent), group: Number(group) };
}

/** The pids of every process on the machine. */
export function allPids(): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

/** Whether the process has exited (gone, or a zombie nobody reaped yet). */
export function hasExited(pid: number): boolean {
  const stat = processStat(pid);
  return stat === undefined || stat.state === "Z";
}

/** The pids of this process's children whose command line mentions `text`. */
export function childPidsRunning(text: string): number[] {
  return allPids().filter((pid) => {
    if (processStat(pid)?.parent !== process.pid) return false;
    return readProcFile(`/proc/${pid}/cmdline`)?.includes(text) ?? false;
  });
}

/** The live (not zombie) processes of the given process groups. */
export function processGroupMembers(groups: number[]): number[] {
  return allPids().filter((pid) => {
    const stat = processStat(pid);
    return stat !== undefined && stat.state !== "Z" && groups.includes(stat.group);
  });
}

/** What the process's open file descriptors point at (paths, `socket:[inode]`, …). */
export function openFiles(pid: number): string[] {
  const targets: string[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      targets.push(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      // Closed while we looked.
    }
  }
  return targets;
}

/** The TCP ports a process listens on, from its socket inodes and /proc/net/tcp(6). */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set(openFiles(pid).flatMap((target) => /^socket:\[(\d+)\]$/.exec(target)?.[1] ?? []));
  const ports: number[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = readProcFile(table) ?? "";
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] !== "0A" || !inodes.has(fields[9] ?? "")) continue;
      ports.push(Number.parseInt(fields[1]?.split(":")[1] ?? "", 16));
    }
  }
  return ports;
}

/** The resident memory of a process in bytes (VmRSS); undefined when it is gone or a zombie. */
export function residentBytes(pid: number): number | undefined {
  const status = readProcFile(`/proc/${pid}/status`);
  const kilobytes = status === undefined ? undefined : /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kilobytes === undefined ? undefined : Number(kilobytes) * 1024;
}

/** The process's command name (`comm`: at most 15 characters); undefined when it is gone. */
export function processName(pid: number): string | undefined {
  return readProcFile(`/proc/${pid}/comm`)?.trim();
}

/** When the process started, in clock ticks since boot (the same inside a PID namespace); undefined when it is gone. */
export function startTicks(pid: number): number | undefined {
  const stat = readProcFile(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // Field 22; the fields after the command name start at field 3.
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
}

/**
 * Whether the process is on its way out: a SIGKILL is pending for it, or it is exiting (PF_EXITING),
 * or it is gone. Between a kill and the exit a process still shows in /proc with its children.
 */
export function beingKilled(pid: number): boolean {
  const stat = readProcFile(`/proc/${pid}/stat`);
  const status = readProcFile(`/proc/${pid}/status`);
  if (stat === undefined || status === undefined) return true;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Field 9 (flags) is the 7th after the command name; PF_EXITING is 0x4.
  if (fields[0] === "Z" || (Number(fields[6]) & 0x4) !== 0) return true;
  const pending = (name: string) => BigInt(`0x${/^${name}:\s+([0-9a-f]+)$/m.exec(status)?.[1] ?? "0"}`);
  // SIGKILL is signal 9: bit 8 of the pending masks (a group kill is pending in ShdPnd).
  return ((pending("SigPnd") | pending("ShdPnd")) & 0x100n) !== 0n;
}

/** Every live (not zombie) descendant of `pid`: children, their children, … */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const candidate of allPids()) {
    const stat = processStat(candidate);
    if (!stat || stat.state === "Z") continue;
    children.set(stat.parent, [...(children.get(stat.parent) ?? []), candidate]);
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const child of children.get(parent) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** A /proc file's text; undefined when it cannot be read (the process went away while we looked). */
function readProcFile(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
