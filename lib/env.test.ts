import { describe, expect, it } from "vitest";
import { readEnv } from "@/core/env";

describe("the environment", () => {
  it("refuses a payer account that is no IBAN or BIC when read, naming the variable and not the value", () => {
    const name = { PAYOUT_DESK_PAYER_NAME: "Studio Ltd" };
    expect(() => readEnv({ ...name, PAYOUT_DESK_PAYER_IBAN: "DE89370400440532013001" })).toThrow(
      /^Invalid environment variable PAYOUT_DESK_PAYER_IBAN: must be a valid IBAN$/,
    );
    expect(() => readEnv({ ...name, PAYOUT_DESK_PAYER_BIC: "COBA" })).toThrow(
      /^Invalid environment variable PAYOUT_DESK_PAYER_BIC:/,
    );
    expect(
      readEnv({ ...name, PAYOUT_DESK_PAYER_IBAN: "de89 3704 0044 0532 0130 00", PAYOUT_DESK_PAYER_BIC: "cobadeffxxx" }),
    ).toMatchObject({ PAYOUT_DESK_PAYER_IBAN: "DE89370400440532013000", PAYOUT_DESK_PAYER_BIC: "COBADEFFXXX" });
    // All three or none: unset, no account is assumed (lib/payments/files.ts decides by the game's environment).
    expect(() => readEnv({ PAYOUT_DESK_PAYER_IBAN: "DE89370400440532013000" })).toThrow(
      /^Invalid environment variable PAYOUT_DESK_PAYER_NAME: the payer account needs all three/,
    );
    expect(readEnv({}).PAYOUT_DESK_PAYER_IBAN).toBeUndefined();
  });
});
