import { defineTool } from "@tandem/sdk";
import { z } from "zod";

/** A small custom tool for the examples: canned weather, so the demo needs no network. */
export const getWeather = defineTool("get_weather", {
  description: "Get the current weather for a city",
  parameters: z.object({ city: z.string().describe("City name") }),
  handler: async ({ city }) => ({ city, temperatureC: 24, conditions: "sunny" }),
});
