import { describe, expect, it } from "vitest";
import { encodeFrame, FrameReader, FrameTooLarge } from "../../src/cluster/peer-frames.js";
import { InboundOrder, OutboundSequences } from "../../src/cluster/peer-sequence.js";

describe("a sender's sequence and the receiver's order", () => {
  it("numbers each target's messages from 1, and starts again for a target's new incarnation", () => {
    const routes = new OutboundSequences("me-1");
    expect([routes.next("b", "b-1").seq, routes.next("b", "b-1").seq, routes.next("c", "c-1").seq]).toEqual([1, 2, 1]);
    expect(routes.next("b", "b-2")).toEqual({ inc: "me-1", to: "b-2", seq: 1 });
  });

  it("holds early messages, drops duplicates and hands each on once, in order", () => {
    const handed: string[] = [];
    const order = new InboundOrder<string>({ incarnation: "me", deliver: (from, message) => handed.push(`${from}:${message}`) });
    const route = (seq: number, inc = "a-1") => ({ inc, to: "me", seq });
    expect(order.accept("a", route(2), "two")).toBe("held");
    expect(order.accept("a", route(3), "three")).toBe("held");
    expect(order.accept("a", route(3), "three again")).toBe("duplicate");
    expect(order.accept("a", route(1), "one")).toBe("handled");
    expect(order.accept("a", route(2), "two again")).toBe("duplicate");
    expect(order.handledUpTo("a", "a-1")).toBe(3);
    // A message meant for this node id's previous process is handed on as it comes.
    expect(order.accept("a", { inc: "a-1", to: "someone-before-me", seq: 9 }, "old")).toBe("unsequenced");
    // A new incarnation of the sender starts at 1; its predecessor's late messages are dropped.
    expect(order.accept("a", route(1, "a-2"), "restarted")).toBe("handled");
    expect(order.accept("a", route(4, "a-1"), "late")).toBe("stale");
    expect(handed).toEqual(["a:one", "a:two", "a:three", "a:old", "a:restarted"]);
    order.stop();
  });

  it("gives up on a gap after gapMs and hands on what came after it; a message of the gap that still comes is handed on late, once", async () => {
    const handed: number[] = [];
    const skipped: string[] = [];
    const order = new InboundOrder<number>({ incarnation: "me", gapMs: 50, deliver: (_, message) => handed.push(message), onGapSkipped: (from, first, last) => skipped.push(`${from} ${first}-${last}`) });
    order.accept("a", { inc: "a-1", to: "me", seq: 1 }, 1);
    order.accept("a", { inc: "a-1", to: "me", seq: 4 }, 4);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(handed).toEqual([1, 4]);
    expect(skipped).toEqual(["a 2-3"]);
    expect(order.accept("a", { inc: "a-1", to: "me", seq: 2 }, 2)).toBe("late");
    expect(order.accept("a", { inc: "a-1", to: "me", seq: 2 }, 2)).toBe("duplicate");
    expect(handed).toEqual([1, 4, 2]);
    order.stop();
  });
});

describe("peer link frames", () => {
  it("reads frames cut anywhere, and refuses one over the limit from its header alone", () => {
    const bytes = Buffer.concat([encodeFrame({ a: 1 }), encodeFrame({ b: "x".repeat(1000) }), encodeFrame([3])]);
    const reader = new FrameReader(4096);
    const frames: unknown[] = [];
    for (let offset = 0; offset < bytes.length; offset += 7) frames.push(...reader.push(bytes.subarray(offset, offset + 7)));
    expect(frames).toEqual([{ a: 1 }, { b: "x".repeat(1000) }, [3]]);
    const small = new FrameReader(100);
    expect(() => small.push(encodeFrame({ b: "x".repeat(1000) }).subarray(0, 4))).toThrow(FrameTooLarge);
  });
});
