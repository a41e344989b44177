import { z } from "zod";
import { scenarioSchema } from "./schema";

/** The JSON Schema of the scenario file, as committed in emulator/scenario.schema.json. */
export function scenarioJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(scenarioSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return {
    ...schema,
    $id: "https://payout-desk.example/emulator/scenario.schema.json",
    title: "Service emulator scenario",
    description: "The state the service emulator starts from. See emulator/README.md, 'Scenario file'.",
  };
}

export function scenarioJsonSchemaText(): string {
  return `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
}
