import { describe, expect, it } from "vitest";
import { computeSignature, parseSignatureHeader, signatureHeader, verifySignature } from "./signature";

const SECRET = "whsec_current_one";
const PREVIOUS = "whsec_previous_one";
const BODY =
  '{"event_id":"evt_1","event_type":"subscription.refunded",' +
  '"created_at":"2026-06-01T00:00:00Z","tenant_id":"g1","data":{}}';
const NOW_MS = 1_780_000_000_123;
const NOW = Math.floor(NOW_MS / 1000);

function verify(header: string | null, options: { body?: string; secrets?: string[] } = {}) {
  return verifySignature({
    header,
    body: options.body ?? BODY,
    secrets: options.secrets ?? [SECRET, PREVIOUS],
    nowMs: NOW_MS,
  });
}

describe("parseSignatureHeader", () => {
  it("reads t and every v1, ignoring other schemes and spaces", () => {
    const sig = computeSignature(BODY, NOW, SECRET);
    const parsed = parseSignatureHeader(` t=${NOW} , v0=abc, v1=${sig},v1=${sig.toUpperCase()}`);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      expect(parsed.header.timestamp).toBe(NOW);
      expect(parsed.header.signatures.map((s) => s.toString("hex"))).toEqual([sig, sig]);
    }
  });

  it.each([
    ["missing", null, "signature_missing"],
    ["empty", "  ", "signature_missing"],
    ["v1 empty", `t=${NOW},v1=`, "signature_malformed"],
    ["v1 not hex", `t=${NOW},v1=${"z".repeat(64)}`, "signature_malformed"],
    ["v1 too short", `t=${NOW},v1=abcd`, "signature_malformed"],
    ["no t", `v1=${"a".repeat(64)}`, "signature_malformed"],
    ["t not a number", `t=yesterday,v1=${"a".repeat(64)}`, "signature_malformed"],
    ["t negative", `t=-5,v1=${"a".repeat(64)}`, "signature_malformed"],
    ["two t", `t=${NOW},t=${NOW},v1=${"a".repeat(64)}`, "signature_malformed"],
    ["no v1", `t=${NOW}`, "signature_malformed"],
    ["part without =", `t=${NOW},v1`, "signature_malformed"],
    [
      "too many v1",
      [`t=${NOW}`, ...Array.from({ length: 9 }, () => `v1=${"a".repeat(64)}`)].join(","),
      "signature_malformed",
    ],
    ["too long", `t=${NOW},v1=${"a".repeat(64)},x=${"y".repeat(3000)}`, "signature_malformed"],
  ])("refuses a header that is %s", (_name, header, reason) => {
    const parsed = parseSignatureHeader(header);
    expect(parsed).toMatchObject({ ok: false, reason });
  });
});

describe("verifySignature", () => {
  it("accepts the current secret", () => {
    expect(verify(signatureHeader(BODY, NOW, [SECRET]))).toEqual({ ok: true, timestamp: NOW, secretIndex: 0 });
  });

  it("accepts the previous secret during a rotation", () => {
    expect(verify(signatureHeader(BODY, NOW, [PREVIOUS]))).toEqual({ ok: true, timestamp: NOW, secretIndex: 1 });
  });

  it("accepts two v1 values when one of them is valid", () => {
    const other = computeSignature(BODY, NOW, "whsec_someone_else");
    const header = `t=${NOW},v1=${other},v1=${computeSignature(BODY, NOW, SECRET)}`;
    expect(verify(header)).toMatchObject({ ok: true, secretIndex: 0 });
  });

  it("refuses a wrong secret", () => {
    expect(verify(signatureHeader(BODY, NOW, ["whsec_wrong"]))).toMatchObject({
      ok: false,
      reason: "signature_mismatch",
    });
  });

  it("refuses a re-serialised body", () => {
    const header = signatureHeader(BODY, NOW, [SECRET]);
    const reserialised = JSON.stringify(JSON.parse(BODY), null, 2);
    expect(verify(header, { body: reserialised })).toMatchObject({ ok: false, reason: "signature_mismatch" });
  });

  it("refuses a signature made over another timestamp", () => {
    const sig = computeSignature(BODY, NOW - 10, SECRET);
    expect(verify(`t=${NOW},v1=${sig}`)).toMatchObject({ ok: false, reason: "signature_mismatch" });
  });

  it("refuses when the game has no signing secret", () => {
    expect(verify(signatureHeader(BODY, NOW, [SECRET]), { secrets: [] })).toMatchObject({
      ok: false,
      reason: "no_secret_configured",
    });
  });

  it.each([
    [-299, true],
    [-300, true],
    [-301, false],
    [299, true],
    [300, true],
    [301, false],
  ])("a timestamp %i s from now is accepted: %s", (offset, accepted) => {
    const t = NOW + offset;
    const result = verify(signatureHeader(BODY, t, [SECRET]));
    if (accepted) expect(result).toMatchObject({ ok: true, timestamp: t });
    else expect(result).toMatchObject({ ok: false, reason: offset < 0 ? "timestamp_too_old" : "timestamp_in_future" });
  });

  it("reports a stale but genuine delivery as stale, a stale forgery as a mismatch", () => {
    expect(verify(signatureHeader(BODY, NOW - 3600, [SECRET]))).toMatchObject({
      ok: false,
      reason: "timestamp_too_old",
    });
    expect(verify(signatureHeader(BODY, NOW - 3600, ["whsec_wrong"]))).toMatchObject({
      ok: false,
      reason: "signature_mismatch",
    });
  });

  it("signs the bytes of the body, not a character count (non-ASCII bodies)", () => {
    const body = BODY.replace("{}", '{"reason":"Rückerstattung – 返金"}');
    expect(verify(signatureHeader(body, NOW, [SECRET]), { body })).toMatchObject({ ok: true });
    expect(verify(signatureHeader(body, NOW, [SECRET]), { body: body.normalize("NFD") })).toMatchObject({ ok: false });
  });
});
