import type { RequestToken, SessionFsError } from "@tandem/protocol";
import {
  SessionFsAppendFile,
  SessionFsExists,
  SessionFsMkdir,
  SessionFsReadFile,
  SessionFsReaddirWithTypes,
  SessionFsRm,
  SessionFsSqliteExists,
  SessionFsSqliteQuery,
  SessionFsWriteFile,
} from "@tandem/protocol/methods/session-fs";
import type { z } from "zod";
import { errorMessage, ErrorCodes, TandemError } from "../errors.js";
import type { PersistenceOperation } from "../store/persistence-error.js";

/** What `sessionFs.setProvider` declared: where each session's state lives in the client's file system. */
export interface SessionFsConfig {
  /** The working directory new sessions start in, in the client's terms. */
  initialCwd: string;
  /** The folder, in every session's file system, that holds the session's state. */
  sessionStatePath: string;
  conventions: "posix" | "windows";
  /** The client runs the `sql` tool's database too (`sessionFs.sqlite*`). */
  sqlite: boolean;
}

/** The client that provides the file system, as this module needs it. */
export interface SessionFsClient {
  readonly id: number;
  readonly isOpen: boolean;
  sendRequest<R>(method: string, params: unknown, signal?: AbortSignal): Promise<R>;
}


/** A statement's outcome as the client's database reports it. */
export type SqliteResult = z.infer<typeof SessionFsSqliteQuery.result>;

type AnyToken = RequestToken<string, z.ZodType, z.ZodType>;

/**
 * The file system a client provides (`sessionFs.setProvider`), as typed calls: each request names
 * its session and a path under the declared state folder. Every failure is a `PersistenceFailed`
 * error naming the operation and the path — what the client reported (`ENOENT`, `UNKNOWN` and its
 * message), a request the client refused or did not answer in time (`TANDEM_SESSION_FS_TIMEOUT_MS`),
 * an answer of the wrong shape, or a client that went away (its pending requests end at once).
 *
 * @example
 * const fs = new ClientFileSystem(client, config);
 * await fs.append(sessionId, fs.statePath("events.jsonl"), line + "\n");
 */
export class ClientFileSystem {
  private readonly separator: string;

  constructor(
    readonly client: SessionFsClient,
    readonly config: SessionFsConfig,
    /** How long the client may take to answer one request. */
    private readonly timeoutMs: number,
  ) {
    this.separator = config.conventions === "windows" ? "\\" : "/";
  }

  /** The path of a session file (`name` uses `/`) under the declared state folder. */
  statePath(name = ""): string {
    const root = this.config.sessionStatePath.replace(/[\\/]+$/, "");
    if (name === "") return root;
    return `${root}${this.separator}${name.split("/").join(this.separator)}`;
  }

  /** Names a path in messages: the client and its path. */
  describe(path: string): string {
    return `${path} (in the session file system of client ${this.client.id})`;
  }

  /** A file's text, or undefined when it does not exist. */
  async read(sessionId: string, path: string): Promise<string | undefined> {
    const reply = await this.call(SessionFsReadFile, { sessionId, path }, path, "read");
    if (!reply.error) return reply.content;
    if (reply.error.code === "ENOENT") return undefined;
    throw this.reported(reply.error, path, "read");
  }

  async write(sessionId: string, path: string, content: string): Promise<void> {
    this.check(await this.call(SessionFsWriteFile, { sessionId, path, content }, path, "write"), path, "write");
  }

  async append(sessionId: string, path: string, content: string): Promise<void> {
    this.check(await this.call(SessionFsAppendFile, { sessionId, path, content }, path, "write"), path, "write");
  }

  async exists(sessionId: string, path: string): Promise<boolean> {
    return (await this.call(SessionFsExists, { sessionId, path }, path, "read")).exists;
  }

  /** Creates a folder and its parents. */
  async mkdirs(sessionId: string, path: string): Promise<void> {
    this.check(await this.call(SessionFsMkdir, { sessionId, path, recursive: true }, path, "open"), path, "open");
  }

  /** The entries of a folder; empty when it does not exist. */
  async list(sessionId: string, path: string): Promise<Array<{ name: string; type: "file" | "directory" }>> {
    const reply = await this.call(SessionFsReaddirWithTypes, { sessionId, path }, path, "read");
    if (!reply.error) return reply.entries;
    if (reply.error.code === "ENOENT") return [];
    throw this.reported(reply.error, path, "read");
  }

  /** Removes a path (recursively); a missing one is no failure. */
  async remove(sessionId: string, path: string): Promise<void> {
    const error = await this.call(SessionFsRm, { sessionId, path, recursive: true, force: true }, path, "delete");
    if (error && error.code !== "ENOENT") throw this.reported(error, path, "delete");
  }

  /**
   * Runs one statement in the session's database in the client. A statement the client's database
   * refuses rejects with its message as a plain error (the query's author can fix it); a client
   * that went away, with `PersistenceFailed`.
   */
  async sqliteQuery(sessionId: string, query: string, queryType: "exec" | "query" | "run"): Promise<SqliteResult> {
    const refused = (error: unknown): Error => new Error(errorMessage(error));
    const result = await this.call(SessionFsSqliteQuery, { sessionId, query, queryType }, "the session database", "write", refused);
    if (result.error) throw new Error(result.error.message ?? result.error.code);
    return result;
  }

  /** Whether the session's database exists in the client yet. */
  async sqliteExists(sessionId: string): Promise<boolean> {
    return (await this.call(SessionFsSqliteExists, { sessionId }, "the session database", "read")).exists;
  }

  /** Sends one request and checks the answer's shape; every failure becomes `PersistenceFailed`. */
  private async call<T extends AnyToken>(
    token: T,
    params: z.infer<T["params"]>,
    path: string,
    operation: PersistenceOperation,
    refused?: (error: unknown) => Error,
  ): Promise<z.infer<T["result"]>> {
    if (!this.client.isOpen) throw this.gone(path, operation);
    let reply: unknown;
    const deadline = AbortSignal.timeout(this.timeoutMs);
    try {
      reply = await this.client.sendRequest<unknown>(token.method, params, deadline);
    } catch (error) {
      if (!this.client.isOpen) throw this.gone(path, operation);
      if (deadline.aborted) {
        throw new TandemError(ErrorCodes.PersistenceFailed, `Could not ${operation} ${this.describe(path)}: the client did not answer ${token.method} within ${this.timeoutMs} ms`, {
          path,
          operation,
          method: token.method,
          reason: "provider-timeout",
          timeoutMs: this.timeoutMs,
        });
      }
      if (refused) throw refused(error);
      throw new TandemError(ErrorCodes.PersistenceFailed, `Could not ${operation} ${this.describe(path)}: the client failed ${token.method}: ${errorMessage(error)}`, {
        path,
        operation,
        method: token.method,
      });
    }
    const parsed = token.result.safeParse(reply);
    if (!parsed.success) {
      throw new TandemError(ErrorCodes.PersistenceFailed, `Could not ${operation} ${this.describe(path)}: the client answered ${token.method} with something that is not a ${token.method} result`, {
        path,
        operation,
        method: token.method,
      });
    }
    return parsed.data as z.infer<T["result"]>;
  }

  private check(error: SessionFsError | null | undefined, path: string, operation: PersistenceOperation): void {
    if (error) throw this.reported(error, path, operation);
  }

  private reported(error: SessionFsError, path: string, operation: PersistenceOperation): TandemError {
    const detail = error.message ? `${error.code}: ${error.message}` : error.code;
    return new TandemError(ErrorCodes.PersistenceFailed, `Could not ${operation} ${this.describe(path)}: ${detail}`, { path, operation, code: error.code });
  }

  private gone(path: string, operation: PersistenceOperation): TandemError {
    return new TandemError(
      ErrorCodes.PersistenceFailed,
      `Could not ${operation} ${this.describe(path)}: the client that provides the session file system disconnected`,
      { path, operation, reason: "provider-disconnected" },
    );
  }
}
