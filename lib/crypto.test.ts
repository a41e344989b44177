import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { maskSecret, openSecret, sealSecret } from "./crypto";

const KEY = randomBytes(32);

describe("secrets at rest", () => {
  it("round-trips and never contains the plain text", () => {
    const sealed = sealSecret("gs_live_abcdef123456", "game-secret:g1", KEY);
    expect(sealed).not.toContain("abcdef123456");
    expect(openSecret(sealed, "game-secret:g1", KEY)).toBe("gs_live_abcdef123456");
  });

  it("uses a fresh IV each time", () => {
    expect(sealSecret("same", "c", KEY)).not.toBe(sealSecret("same", "c", KEY));
  });

  it("refuses another context, another key and a tampered value", () => {
    const sealed = sealSecret("whsec_123456789", "webhook-secret:g1", KEY);
    expect(() => openSecret(sealed, "webhook-secret:g2", KEY)).toThrow();
    expect(() => openSecret(sealed, "webhook-secret:g1", randomBytes(32))).toThrow();
    const parts = sealed.split(".");
    const body = Buffer.from(parts[3]!, "base64url");
    body[0] = (body[0] ?? 0) ^ 1;
    parts[3] = body.toString("base64url");
    expect(() => openSecret(parts.join("."), "webhook-secret:g1", KEY)).toThrow();
  });

  it("refuses a truncated or lengthened authentication tag", () => {
    const sealed = sealSecret("gs_live_tag_length_0001", "game-secret:g1", KEY);
    const parts = sealed.split(".");
    const tag = Buffer.from(parts[2]!, "base64url");
    expect(tag).toHaveLength(16);
    for (const length of [4, 8, 12, 15]) {
      const truncated = [parts[0], parts[1], tag.subarray(0, length).toString("base64url"), parts[3]].join(".");
      expect(() => openSecret(truncated, "game-secret:g1", KEY)).toThrow(/tag/);
    }
    const longer = [parts[0], parts[1], Buffer.concat([tag, Buffer.from([0])]).toString("base64url"), parts[3]].join(
      ".",
    );
    expect(() => openSecret(longer, "game-secret:g1", KEY)).toThrow(/tag/);
  });

  it("masks all but the prefix and last four characters", () => {
    expect(maskSecret("gs_test_one_secret_9f2a")).toBe("gs_test_••••9f2a");
    expect(maskSecret("short")).toBe("••••");
    // A long word before an underscore is part of the secret, not its kind: only the last four show.
    expect(maskSecret("MyStudioWebhookSigningKey_2026")).toBe("••••2026");
    expect(maskSecret("whsec_2026")).toBe("••••");
  });
});
