import { z } from "zod";
import { defineRequest } from "../method.js";

/**
 * The session file system a client provides (`sessionFs.setProvider`, in `server-misc.ts`): once a
 * client registered it, the runtime keeps each session's state (event log, workspace info, plan,
 * checkpoints, spilled tool output, the `sql` tool's database) in that client, through these
 * requests, which the RUNTIME sends and the CLIENT answers. Paths follow the conventions the client
 * declared; every request names its session, so one provider can keep sessions apart.
 *
 * File operations answer a failure in-band: a `SessionFsError` (`{ code: "ENOENT" | "UNKNOWN",
 * message? }`) as the result of `writeFile`/`appendFile`/`mkdir`/`rm`/`rename`, or in the `error`
 * member of the others' results. SQLite requests fail as JSON-RPC errors, or (transactions) with a
 * classified `error`.
 */

/** A failure the client's file system reports. */
export const SessionFsError = z.lazy(() => z.looseObject({
  code: z.enum(["ENOENT", "UNKNOWN"]),
  message: z.string().optional(),
}));
export type SessionFsError = z.infer<typeof SessionFsError>;

/** What an operation without a value answers: nothing on success, else the failure. */
const VoidOrError = z.lazy(() => z.union([z.null(), z.undefined(), SessionFsError]));

const pathParams = () => z.looseObject({ sessionId: z.string(), path: z.string() });

/** `sessionFs.readFile`: a file's whole text (UTF-8). */
export const SessionFsReadFile = defineRequest(
  "sessionFs.readFile",
  () => pathParams(),
  () => z.looseObject({ content: z.string(), error: SessionFsError.optional() }),
);

/** `sessionFs.writeFile`: replaces a file's text. */
export const SessionFsWriteFile = defineRequest(
  "sessionFs.writeFile",
  () => pathParams().extend({ content: z.string(), mode: z.number().optional() }),
  () => VoidOrError,
);

/** `sessionFs.appendFile`: adds text at the end of a file (creating it). */
export const SessionFsAppendFile = defineRequest(
  "sessionFs.appendFile",
  () => pathParams().extend({ content: z.string(), mode: z.number().optional() }),
  () => VoidOrError,
);

/** `sessionFs.exists`: whether a path exists. */
export const SessionFsExists = defineRequest(
  "sessionFs.exists",
  () => pathParams(),
  () => z.looseObject({ exists: z.boolean() }),
);

/** `sessionFs.stat`: what a path is, its size and times. */
export const SessionFsStat = defineRequest(
  "sessionFs.stat",
  () => pathParams(),
  () =>
    z.looseObject({
      isFile: z.boolean(),
      isDirectory: z.boolean(),
      size: z.number(),
      mtime: z.string(),
      birthtime: z.string(),
      error: SessionFsError.optional(),
    }),
);

/** `sessionFs.mkdir`: creates a folder (and its parents when `recursive`). */
export const SessionFsMkdir = defineRequest(
  "sessionFs.mkdir",
  () => pathParams().extend({ recursive: z.boolean().optional(), mode: z.number().optional() }),
  () => VoidOrError,
);

/** `sessionFs.readdir`: the names in a folder. */
export const SessionFsReaddir = defineRequest(
  "sessionFs.readdir",
  () => pathParams(),
  () => z.looseObject({ entries: z.array(z.string()), error: SessionFsError.optional() }),
);

/** `sessionFs.readdirWithTypes`: the names in a folder, each a file or a folder. */
export const SessionFsReaddirWithTypes = defineRequest(
  "sessionFs.readdirWithTypes",
  () => pathParams(),
  () =>
    z.looseObject({
      entries: z.array(z.looseObject({ name: z.string(), type: z.enum(["file", "directory"]) })),
      error: SessionFsError.optional(),
    }),
);

/** `sessionFs.rm`: removes a path (`force`: a missing one is no failure). */
export const SessionFsRm = defineRequest(
  "sessionFs.rm",
  () => pathParams().extend({ recursive: z.boolean().optional(), force: z.boolean().optional() }),
  () => VoidOrError,
);

/** `sessionFs.rename`: moves a path. */
export const SessionFsRename = defineRequest(
  "sessionFs.rename",
  () => z.looseObject({ sessionId: z.string(), src: z.string(), dest: z.string() }),
  () => VoidOrError,
);

/** How the client runs a statement: `exec` (schema, scripts; no rows), `query` (rows), `run` (changes). */
export const SessionFsSqliteQueryType = z.lazy(() => z.enum(["exec", "query", "run"]));
export type SessionFsSqliteQueryType = z.infer<typeof SessionFsSqliteQueryType>;

/** Named bind parameters of a statement. */
const BindParams = z.lazy(() => z.record(z.string(), z.union([z.string(), z.number(), z.null()])));

/** What a statement did in the client's database. */
export const SessionFsSqliteResult = z.lazy(() => z.looseObject({
  rows: z.array(z.record(z.string(), z.unknown())),
  columns: z.array(z.string()),
  rowsAffected: z.number(),
  lastInsertRowid: z.number().optional(),
  error: SessionFsError.optional(),
}));
export type SessionFsSqliteResult = z.infer<typeof SessionFsSqliteResult>;

/** `sessionFs.sqliteQuery`: one statement against the session's database in the client. */
export const SessionFsSqliteQuery = defineRequest(
  "sessionFs.sqliteQuery",
  () => z.looseObject({ sessionId: z.string(), query: z.string(), queryType: SessionFsSqliteQueryType, params: BindParams.optional() }),
  () => SessionFsSqliteResult,
);

/** `sessionFs.sqliteTransaction`: statements run atomically; a failure is classified. */
export const SessionFsSqliteTransaction = defineRequest(
  "sessionFs.sqliteTransaction",
  () =>
    z.looseObject({
      sessionId: z.string(),
      statements: z.array(z.looseObject({ query: z.string(), queryType: SessionFsSqliteQueryType, params: BindParams.optional() })),
    }),
  () =>
    z.looseObject({
      results: z.array(SessionFsSqliteResult),
      error: z.looseObject({ errorClass: z.enum(["busyOrLocked", "fatal", "postCommitAmbiguous"]), message: z.string() }).optional(),
    }),
);

/** `sessionFs.sqliteExists`: whether the session's database exists in the client yet. */
export const SessionFsSqliteExists = defineRequest(
  "sessionFs.sqliteExists",
  () => z.looseObject({ sessionId: z.string() }),
  () => z.looseObject({ exists: z.boolean() }),
);

/** The requests the runtime sends to the client that provides the session file system. */
export const sessionFsClientRequests = [
  SessionFsReadFile,
  SessionFsWriteFile,
  SessionFsAppendFile,
  SessionFsExists,
  SessionFsStat,
  SessionFsMkdir,
  SessionFsReaddir,
  SessionFsReaddirWithTypes,
  SessionFsRm,
  SessionFsRename,
  SessionFsSqliteQuery,
  SessionFsSqliteTransaction,
  SessionFsSqliteExists,
] as const;
