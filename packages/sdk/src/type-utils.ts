/**
 * The declared keys of `T` without its index signature (zod loose objects carry one) and without
 * `sessionId`. Unlike `Omit`, the declared keys survive the index signature.
 */
export type WithoutSessionId<T> = {
  [K in keyof T as string extends K ? never : number extends K ? never : K extends "sessionId" ? never : K]: T[K];
};
