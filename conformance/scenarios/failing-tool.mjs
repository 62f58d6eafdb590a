/** A custom tool whose handler throws. */
export default {
  title: "failing custom tool",
  async run(ctx) {
    const tool = {
      name: "lookup_order",
      description: "Looks an order up.",
      parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
      handler: async () => {
        throw new Error("database offline");
      },
    };
    const session = await ctx.createSession({ tools: [tool] });
    await ctx.sendAndIdle(session, { prompt: "[conf:failing-tool] Look up order A-17." });
  },
};
