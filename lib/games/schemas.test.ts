import { describe, expect, it } from "vitest";
import { gameInputSchema } from "./schemas";

const game = (environment: "sandbox" | "production", baseUrl: string) => ({
  id: "g1",
  name: "Game",
  environment,
  baseUrl,
  secret: "gs_test_12345678",
  webhookSecrets: [],
});

describe("a game's base URL", () => {
  it.each([
    "https://169.254.169.254",
    "https://169.254.169.254/latest/meta-data",
    "http://metadata.google.internal",
    "https://metadata.google.internal./computeMetadata/v1",
    "https://[fe80::1]",
    "https://[fd00:ec2::254]",
    "https://100.100.100.200",
    "https://0xA9FEA9FE",
  ])("refuses %s for a production game, naming the field", (baseUrl) => {
    const parsed = gameInputSchema.safeParse(game("production", baseUrl));
    expect(parsed.success).toBe(false);
    expect(
      parsed.error?.issues.some((i) => i.path[0] === "baseUrl" && /link-local or cloud metadata/.test(i.message)),
    ).toBe(true);
  });

  it("accepts an ordinary https address and a local emulator", () => {
    expect(gameInputSchema.safeParse(game("production", "https://api.service.example")).success).toBe(true);
    expect(gameInputSchema.safeParse(game("sandbox", "http://127.0.0.1:4010")).success).toBe(true);
  });

  it.each([
    ["https://api.service.example/?region=eu", "must not carry a query"],
    ["https://api.service.example/#top", "must not carry a query (?…) or a fragment"],
    ["https://user:hunter2@api.service.example", "must not carry a user name or password"],
  ])("refuses %s, which the client could not call or would show in the clear", (baseUrl, message) => {
    const parsed = gameInputSchema.safeParse(game("production", baseUrl));
    expect(parsed.error?.issues.find((i) => i.path[0] === "baseUrl")?.message).toContain(message);
  });
});
