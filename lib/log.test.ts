import { afterEach, describe, expect, it, vi } from "vitest";

process.env.LOG_LEVEL = "info";
const { log } = await import("./log");

afterEach(() => {
  vi.restoreAllMocks();
});

function logged(write: () => void): Record<string, unknown> {
  const lines: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  write();
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? "{}") as Record<string, unknown>;
}

describe("log lines", () => {
  it("replace secrets and bank details by their key, however deep, and keep the rest", () => {
    const line = logged(() =>
      log.info("profile saved", {
        playerId: 7,
        webhookSecret: "whsec_abcdefghijkl",
        details: { iban: "DE89370400440532013000", bic: "COBADEFFXXX", accountHolder: "Ada Lovelace" },
        rows: [{ account_number: "12345678", routingNumber: "021000021" }],
        wallets: { paypalEmail: "ada@example.com", paypalPayerId: "PAYER7", wiseEmail: "ada@wise.example" },
      }),
    );
    expect(line).toMatchObject({
      level: "info",
      message: "profile saved",
      playerId: 7,
      webhookSecret: "[redacted]",
      details: { iban: "[redacted]", bic: "[redacted]", accountHolder: "[redacted]" },
      rows: [{ account_number: "[redacted]", routingNumber: "[redacted]" }],
      wallets: { paypalEmail: "[redacted]", paypalPayerId: "[redacted]", wiseEmail: "[redacted]" },
    });
    const text = JSON.stringify(line);
    for (const value of ["DE89", "COBADEFF", "Lovelace", "whsec_", "12345678", "021000021"])
      expect(text).not.toContain(value);
  });

  it("take a user and password out of any address written in a value or an error's message", () => {
    const line = logged(() =>
      log.info("mail server refused", {
        server: "smtps://statements%40studio.example:s3cr%2Ft@smtp.example.com:465",
        error: new Error("connect ECONNREFUSED postgres://desk:hunter2@db.internal:5432/desk"),
        base: "https://api.service.example/sandbox",
        unencoded: "smtp://user:p@ss@smtp.example.com:587",
      }),
    );
    expect(line).toMatchObject({
      server: "smtps://[redacted]@smtp.example.com:465",
      error: { message: "connect ECONNREFUSED postgres://[redacted]@db.internal:5432/desk" },
      base: "https://api.service.example/sandbox",
      unencoded: "smtp://[redacted]@smtp.example.com:587",
    });
    expect(JSON.stringify(line)).not.toMatch(/hunter2|s3cr/);
  });
});
