/** A custom tool, approved through the permission handler, answered by the client. */
export default {
  title: "custom tool with permission",
  async run(ctx) {
    const tool = {
      name: "get_weather",
      description: "Current weather of a city.",
      parameters: { type: "object", properties: { city: { type: "string", description: "City name" } }, required: ["city"] },
      handler: async ({ city }) => `${city}: 72 degrees, sunny`,
    };
    const session = await ctx.createSession({ tools: [tool] });
    await ctx.sendAndIdle(session, { prompt: "[conf:custom-tool] What is the weather in Paris?" });
  },
};
