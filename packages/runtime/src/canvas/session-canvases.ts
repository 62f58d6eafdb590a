import type { CanvasDeclaration, OpenCanvasInstance } from "@tandem/protocol";
import { ErrorCodes } from "@tandem/protocol/errors";
import { invalidParams, TandemError } from "../errors.js";
import type { ClientPort } from "../ports/clients.js";

/** A canvas declared by a connected client. */
export interface DeclaredCanvas {
  readonly owner: ClientPort;
  readonly declaration: CanvasDeclaration;
}

/** What {@link SessionCanvases} needs from its session. */
export interface CanvasHost {
  readonly sessionId: string;
  /** The canvases the connected clients declared, the most recently registered client last. */
  declaredCanvases(): DeclaredCanvas[];
}

/** What a client's `canvas.open` answers. */
interface ProviderOpenResult {
  url?: unknown;
  title?: unknown;
  status?: unknown;
}

/**
 * The canvases of one session: the ones its connected clients declared (`canvases` in
 * `session.create` / `session.resume`), and the instances opened from them. The declaring client
 * renders a canvas and runs its actions: opening, closing and invoking an action are forwarded to it
 * (`canvas.open`, `canvas.close`, `canvas.action.invoke`), and the session keeps the open instances.
 * A canvas is named by its id and the id of its owner (`extensionId`: an extension's id, or
 * `client-<n>` for an application); with one owner, the id alone is enough.
 *
 * @example
 * await canvases.open({ canvasId: "counter", instanceId: "counter-1", input: { start: 10 } });
 * await canvases.invoke({ instanceId: "counter-1", actionName: "increment", input: { amount: 5 } });
 */
export class SessionCanvases {
  private readonly open = new Map<string, { instance: OpenCanvasInstance; owner: ClientPort }>();

  constructor(private readonly host: CanvasHost) {}

  /** The declared canvases (`session.canvas.list`). */
  list(): Array<{ canvasId: string; extensionId: string; displayName: string; description: string; inputSchema?: unknown; actions?: CanvasDeclaration["actions"] }> {
    return this.host.declaredCanvases().map(({ owner, declaration }) => ({
      canvasId: declaration.id,
      extensionId: ownerId(owner),
      displayName: declaration.displayName,
      description: declaration.description,
      ...(declaration.inputSchema !== undefined ? { inputSchema: declaration.inputSchema } : {}),
      ...(declaration.actions ? { actions: declaration.actions } : {}),
    }));
  }

  /** The open instances (`session.canvas.listOpen`), in the order they were opened. */
  listOpen(): OpenCanvasInstance[] {
    return [...this.open.values()].map(({ instance }) => instance);
  }

  /** Opens an instance through the canvas's client; opening an open `instanceId` again replaces it. */
  async openInstance(request: { canvasId: string; instanceId: string; extensionId?: string; input?: unknown }): Promise<OpenCanvasInstance> {
    const { owner, declaration } = this.find(request.canvasId, request.extensionId);
    const extensionId = ownerId(owner);
    const answer = await owner.sendRequest<ProviderOpenResult | null>("canvas.open", {
      sessionId: this.host.sessionId,
      extensionId,
      canvasId: declaration.id,
      instanceId: request.instanceId,
      ...(request.input !== undefined ? { input: request.input } : {}),
    });
    const instance: OpenCanvasInstance = {
      instanceId: request.instanceId,
      canvasId: declaration.id,
      extensionId,
      ...stringField("title", answer?.title),
      ...stringField("status", answer?.status),
      ...stringField("url", answer?.url),
      ...(request.input !== undefined ? { input: request.input } : {}),
    };
    this.open.delete(request.instanceId);
    this.open.set(request.instanceId, { instance, owner });
    return instance;
  }

  /** Closes an open instance: it leaves the list, then its client is told. */
  async close(instanceId: string): Promise<void> {
    const entry = this.openEntry(instanceId);
    this.open.delete(instanceId);
    if (!entry.owner.isOpen) return;
    await entry.owner.sendRequest("canvas.close", { sessionId: this.host.sessionId, extensionId: entry.instance.extensionId, canvasId: entry.instance.canvasId, instanceId });
  }

  /** Runs a declared action of an open instance in its client; answers what the client returned. */
  async invoke(request: { instanceId: string; actionName: string; input?: unknown }): Promise<{ result: unknown }> {
    const { instance, owner } = this.openEntry(request.instanceId);
    const declared = this.host.declaredCanvases().find((canvas) => canvas.owner === owner && canvas.declaration.id === instance.canvasId);
    if (!declared) throw notAvailable(`the client that opened canvas instance '${request.instanceId}' no longer declares canvas '${instance.canvasId}'`);
    const actions = declared.declaration.actions ?? [];
    if (!actions.some((action) => action.name === request.actionName)) {
      const names = actions.map((action) => action.name).join(", ") || "none";
      throw invalidParams(`Canvas '${instance.canvasId}' has no action '${request.actionName}' (its actions: ${names})`, { canvasId: instance.canvasId, actionName: request.actionName });
    }
    const result = await owner.sendRequest<unknown>("canvas.action.invoke", {
      sessionId: this.host.sessionId,
      extensionId: instance.extensionId,
      canvasId: instance.canvasId,
      instanceId: request.instanceId,
      actionName: request.actionName,
      ...(request.input !== undefined ? { input: request.input } : {}),
    });
    return { result: result ?? null };
  }

  private find(canvasId: string, extensionId: string | undefined): DeclaredCanvas {
    const matches = this.host.declaredCanvases().filter((canvas) => canvas.declaration.id === canvasId && (extensionId === undefined || ownerId(canvas.owner) === extensionId));
    if (matches.length === 0) throw invalidParams(`No canvas '${canvasId}' is declared in this session${extensionId ? ` by '${extensionId}'` : ""}`, { canvasId });
    if (matches.length > 1) {
      throw invalidParams(`Canvas '${canvasId}' is declared by more than one client (${matches.map((match) => ownerId(match.owner)).join(", ")}): name one with extensionId`, { canvasId });
    }
    return matches[0]!;
  }

  private openEntry(instanceId: string): { instance: OpenCanvasInstance; owner: ClientPort } {
    const entry = this.open.get(instanceId);
    if (!entry) throw invalidParams(`No open canvas instance '${instanceId}' in this session`, { instanceId });
    if (!entry.owner.isOpen) {
      this.open.delete(instanceId);
      throw notAvailable(`the client that rendered canvas instance '${instanceId}' has disconnected; the instance was closed`);
    }
    return entry;
  }
}

/** The id a canvas's owner is known by: an extension's own id, else `client-<n>`. */
function ownerId(owner: ClientPort): string {
  return owner.extensionId ?? `client-${owner.id}`;
}

function stringField<K extends string>(key: K, value: unknown): Partial<Record<K, string>> {
  return typeof value === "string" ? ({ [key]: value } as Record<K, string>) : {};
}

function notAvailable(why: string): TandemError {
  return new TandemError(ErrorCodes.NotAvailable, `Canvas not available: ${why}`);
}
