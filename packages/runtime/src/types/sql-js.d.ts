/** The part of `sql.js` (SQLite compiled to WebAssembly; it ships no types) the runtime uses. */
declare module "sql.js" {
  export interface QueryExecResult {
    columns: string[];
    values: unknown[][];
  }
  export interface Statement {
    getSQL(): string;
    getColumnNames(): string[];
    step(): boolean;
    get(): unknown[];
    free(): boolean;
  }
  export interface Database {
    exec(sql: string): QueryExecResult[];
    /** The statements of a script one at a time (each is freed when the next is taken). */
    iterateStatements(sql: string): IterableIterator<Statement>;
    getRowsModified(): number;
    export(): Uint8Array;
    close(): void;
  }
  export interface SqlJsStatic {
    Database: new (data?: Uint8Array) => Database;
  }
  export default function initSqlJs(config?: { locateFile?: (file: string) => string }): Promise<SqlJsStatic>;
}
