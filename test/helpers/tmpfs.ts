import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, type TestContext } from "vitest";

/** A small tmpfs mounted on a fresh folder (a real file system that really fills up). */
export interface Tmpfs {
  dir: string;
  /** Unmounts it and removes the folder. */
  unmount(): void;
}

/**
 * Mounts a tmpfs of `size` (e.g. "64k") on a fresh folder. Needs root (or CAP_SYS_ADMIN); where
 * mounting is not permitted, returns the reason instead, for the test to skip with.
 *
 * @example
 * const mounted = mountTmpfs("64k");
 * if ("skipped" in mounted) context.skip(mounted.skipped);
 */
export function mountTmpfs(size: string): Tmpfs | { skipped: string } {
  const dir = mkdtempSync(join(tmpdir(), "tandem-tmpfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: ["ignore", "ignore", "pipe"] });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { skipped: `cannot mount a tmpfs here (${stderr || (error as Error).message}); the full-disk test needs root` };
  }
  return {
    dir,
    unmount() {
      try {
        execFileSync("umount", [dir], { stdio: "ignore" });
      } catch {
        // Still busy (a process that has not exited yet holds a file): detach it now, freed later.
        execFileSync("umount", ["-l", dir]);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A tmpfs shared by the tests of one file. */
export interface FileTmpfs {
  /** The mounted folder; where no tmpfs could be mounted, skips the calling test instead. */
  dirOrSkip(context: TestContext): string;
}

/**
 * Mounts a tmpfs of `size` before the calling file's tests and unmounts it after them. Where
 * mounting is not permitted, says so once (naming `tests`) and each test that asks for it skips.
 *
 * @example
 * const disk = tmpfsForFile("64k", "the full-disk EventLog test");
 * it("…", (context) => {
 *   const dir = disk.dirOrSkip(context);
 * });
 */
export function tmpfsForFile(size: string, tests: string): FileTmpfs {
  let mounted: Tmpfs | undefined;
  let skipReason: string | undefined;
  beforeAll(() => {
    const result = mountTmpfs(size);
    if ("skipped" in result) {
      skipReason = result.skipped;
      console.warn(`skipping ${tests}: ${skipReason}`);
      return;
    }
    mounted = result;
  });
  afterAll(() => mounted?.unmount());
  return {
    dirOrSkip(context) {
      if (!mounted) return context.skip(skipReason);
      return mounted.dir;
    },
  };
}

/** Fills the file system holding `path` by writing it until the disk is full; returns the bytes written. */
export function fillDisk(path: string): number {
  const fd = openSync(path, "a");
  const chunk = Buffer.alloc(4096, 0x2e);
  let total = 0;
  try {
    for (;;) total += writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
  return total;
}
