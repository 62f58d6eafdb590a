/**
 * The options of an otherwise read-only program that write files, change the system or run other
 * programs, and enough of its other options to read a command line the way the program will.
 */
export interface UnsafeOptions {
  /** Long options (without `--`) that write or run something. */
  unsafeLong: readonly string[];
  /**
   * Harmless long options that are prefixes of unsafe ones (`--compress` of file is not
   * `--compile`): written out in full, they name themselves, not the unsafe option.
   */
  safePrefixes?: readonly string[];
  /** Short option letters that write or run something. */
  unsafeShort?: string;
  /** Short option letters that take a value: what follows them in a cluster is that value. */
  shortWithValue?: string;
}

/**
 * Whether a long option word (`--se=now`, `--comp`) may name one of `options.unsafeLong`.
 * Programs built on getopt_long (and git's parse-options) accept any unambiguous prefix of a long
 * option, so `date --se=…` is `date --set=…`. A prefix shared by several options would be refused
 * as ambiguous; it is treated as the most dangerous of them all the same, since the table may not
 * list every option of every version.
 *
 * @example
 * isUnsafeLongOption("--se=2020-01-01", { unsafeLong: ["set"] }); // true
 * isUnsafeLongOption("--utc", { unsafeLong: ["set"] });           // false
 */
export function isUnsafeLongOption(word: string, options: UnsafeOptions): boolean {
  if (!word.startsWith("--") || word === "--") return false;
  const equals = word.indexOf("=");
  const name = word.slice(2, equals === -1 ? undefined : equals);
  if (name === "") return false;
  if (options.safePrefixes?.includes(name)) return false;
  return options.unsafeLong.some((unsafe) => unsafe.startsWith(name));
}

/**
 * Whether a short option cluster (`-uo`, `-nO`) holds one of `options.unsafeShort`; letters after
 * one that takes a value are that value (`-eO` is the pattern `O`).
 *
 * @example
 * isUnsafeShortCluster("-uo", { unsafeLong: [], unsafeShort: "o" }); // true
 */
export function isUnsafeShortCluster(word: string, options: UnsafeOptions): boolean {
  if (!/^-[^-]/.test(word)) return false;
  const unsafe = options.unsafeShort ?? "";
  const withValue = options.shortWithValue ?? "";
  for (const letter of word.slice(1)) {
    if (unsafe.includes(letter)) return true;
    if (withValue.includes(letter)) return false;
  }
  return false;
}

/** Whether `word` is an option of `options` that writes or runs something. */
export function isUnsafeOption(word: string, options: UnsafeOptions): boolean {
  return isUnsafeLongOption(word, options) || isUnsafeShortCluster(word, options);
}

/** `git diff`, `log`, `show`: options every diff-producing subcommand takes. */
const GIT_DIFF_OPTIONS: UnsafeOptions = {
  // `--output=<file>` writes the diff; `--ext-diff` runs the configured external diff program.
  unsafeLong: ["output", "ext-diff"],
};

/**
 * The unsafe options of each read-only git subcommand. `git grep -O`/`--open-files-in-pager`
 * runs its value (or the pager) on the matching files.
 */
export const GIT_SUBCOMMAND_OPTIONS: Readonly<Record<string, UnsafeOptions>> = {
  grep: { unsafeLong: ["open-files-in-pager"], unsafeShort: "O", shortWithValue: "efABCm" },
  diff: GIT_DIFF_OPTIONS,
  log: GIT_DIFF_OPTIONS,
  show: GIT_DIFF_OPTIONS,
  // The others have no option that writes; one spelled like a diff option is refused all the same.
  blame: GIT_DIFF_OPTIONS,
  shortlog: GIT_DIFF_OPTIONS,
  status: GIT_DIFF_OPTIONS,
  describe: GIT_DIFF_OPTIONS,
  "rev-parse": GIT_DIFF_OPTIONS,
  "ls-files": GIT_DIFF_OPTIONS,
};

/**
 * Unsafe options of the programs on the read-only list that have any. A program not listed here
 * has none (`cat`, `wc`, `head`, `cut`, …: they only read their files and write standard output).
 */
export const PROGRAM_OPTIONS: Readonly<Record<string, UnsafeOptions>> = {
  // `-o`/`--output` writes the result; `--compress-program` runs a program on temporary files.
  sort: { unsafeLong: ["output", "compress-program"], unsafeShort: "o", shortWithValue: "ktTS" },
  // `--pre` runs a preprocessor on every file; `--hostname-bin` runs a program for hyperlinks.
  rg: { unsafeLong: ["pre", "hostname-bin"], shortWithValue: "efgtTmABCEjMr" },
  // `-o` writes the listing; `-R` (with `-H`) writes a 00Tree.html into every directory.
  tree: { unsafeLong: [], unsafeShort: "oR", shortWithValue: "LPIHT" },
  // `-o`/`-O` and `--log-file` copy the input to a file; `--save-marks` writes the history file.
  less: { unsafeLong: ["log-file", "LOG-FILE", "save-marks"], unsafeShort: "oO", shortWithValue: "bhjkpPtTxyz#" },
  // `-C`/`--compile` writes a compiled magic file.
  file: { unsafeLong: ["compile"], safePrefixes: ["compress"], unsafeShort: "C", shortWithValue: "emfFP" },
  // `-s`/`--set` sets the system clock.
  date: { unsafeLong: ["set"], unsafeShort: "s", shortWithValue: "dfrI" },
  // `-F`/`--file` and `-b`/`--boot` set the host name.
  hostname: { unsafeLong: ["file", "boot"], unsafeShort: "Fb" },
};
