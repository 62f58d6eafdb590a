import { ToolResultObject, type ToolDefinition } from "@tandem/protocol";
import { deniedOutcome } from "../permissions/outcome.js";
import { spilledOutputText } from "./large-output.js";
import { boundedToolText, MAX_MODEL_OUTPUT_CHARS } from "./output-limits.js";
import type { BinaryResult, ClientToolReply, Tool, ToolContext, ToolOutcome } from "./types.js";

/**
 * A tool the application defined: the schema lives here, the handler in the client. Unless the
 * tool says `skipPermission`, a `custom-tool` permission is asked first.
 *
 * @example
 * const tool = new ExternalTool({ name: "get_weather", description: "…", parameters: {…} });
 */
export class ExternalTool implements Tool {
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;

  constructor(private readonly definition: ToolDefinition) {
    this.name = definition.name;
    this.description = definition.description ?? "";
    this.parameters = definition.parameters ?? { type: "object", properties: {} };
  }

  async execute(args: unknown, context: ToolContext): Promise<ToolOutcome> {
    if (!this.definition.skipPermission) {
      const decision = await context.requestPermission({
        kind: "custom-tool",
        toolName: this.name,
        toolDescription: this.description,
        args,
      });
      if (decision.kind !== "approved") return deniedOutcome(decision);
    }
    const reply = await context.callClientTool(args);
    const outcome = (await spilledOutcome(this.name, args, reply, context)) ?? outcomeFromReply(this.name, args, reply);
    // A terminal tool ends the turn when it succeeds; a failure goes back to the model to act on.
    return this.definition.isTerminal && outcome.resultType === "success" ? { ...outcome, endsTurn: true } : outcome;
  }
}

/**
 * Maps an application's tool reply (string, result object or error) to an outcome. Long text is
 * cut for the model like shell output ({@link boundedToolText}).
 */
export function outcomeFromReply(toolName: string, args: unknown, reply: ClientToolReply): ToolOutcome {
  const outcome = unboundedOutcomeFromReply(toolName, args, reply);
  if (outcome.textForModel.length <= MAX_MODEL_OUTPUT_CHARS) return outcome;
  return { ...outcome, ...boundedToolText(outcome.textForModel, MAX_MODEL_OUTPUT_CHARS) };
}

/**
 * A successful reply too long for the model, kept whole where the session keeps such outputs (when
 * it has a place for them): the model reads where it is, with a preview. Undefined when the reply
 * fits, failed, or could not be kept (it is then cut in the middle instead).
 */
async function spilledOutcome(toolName: string, args: unknown, reply: ClientToolReply, context: ToolContext): Promise<ToolOutcome | undefined> {
  if (!context.largeOutputs) return undefined;
  const outcome = unboundedOutcomeFromReply(toolName, args, reply);
  if (outcome.resultType !== "success" || outcome.textForModel.length <= MAX_MODEL_OUTPUT_CHARS) return undefined;
  const location = await context.largeOutputs.save(outcome.textForModel).catch(() => undefined);
  if (location === undefined) return undefined;
  const { detailedContent: _detailed, ...rest } = outcome;
  return { ...rest, textForModel: spilledOutputText(outcome.textForModel, location) };
}

/**
 * What the model is told when the application's handler threw: only that the tool failed. The
 * exception's text (paths, secrets, stack traces) goes to the events and stays with the application.
 */
export const clientToolFailedText = "Error: Tool execution failed";

function unboundedOutcomeFromReply(toolName: string, args: unknown, reply: ClientToolReply): ToolOutcome {
  if (reply.error !== undefined) {
    return {
      resultType: "failure",
      textForModel: `Failed to execute \`${toolName}\` tool with arguments: ${JSON.stringify(args ?? {})} due to error: ${reply.errorFromRuntime ? reply.error : clientToolFailedText}`,
      errorMessage: reply.error,
    };
  }
  const result = reply.result;
  if (result === undefined || result === null) return { resultType: "success", textForModel: "" };
  if (typeof result === "string") return { resultType: "success", textForModel: result };
  const parsed = ToolResultObject.safeParse(result);
  if (!parsed.success) return { resultType: "success", textForModel: JSON.stringify(result) };
  const { textResultForLlm, resultType, error, toolTelemetry, binaryResultsForLlm } = parsed.data;
  const kind = resultType === "failure" || resultType === "denied" || resultType === "rejected" ? resultType : "success";
  const images = imagesOf(binaryResultsForLlm);
  return {
    resultType: kind,
    textForModel: textResultForLlm,
    errorMessage: kind === "success" ? undefined : (error ?? textResultForLlm),
    telemetry: toolTelemetry,
    ...(images.length > 0 ? { binaryResults: images } : {}),
  };
}

/** The images among a tool result's `binaryResultsForLlm` (`{type: "image", mimeType, data}`). */
function imagesOf(binaryResults: unknown[] | undefined): BinaryResult[] {
  const images: BinaryResult[] = [];
  for (const item of binaryResults ?? []) {
    if (!item || typeof item !== "object") continue;
    const { type, mimeType, data } = item as Record<string, unknown>;
    if (type === "image" && typeof mimeType === "string" && mimeType.startsWith("image/") && typeof data === "string") {
      images.push({ type: "image", mimeType, data });
    }
  }
  return images;
}
