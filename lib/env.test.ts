import { describe, expect, it } from "vitest";
import { databaseAddress } from "@/bin/with-db";
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
    // A name in another script would be written empty into SEPA files, which the bank refuses.
    expect(() => readEnv({ PAYOUT_DESK_PAYER_NAME: "株式会社スタジオ" })).toThrow(
      /^Invalid environment variable PAYOUT_DESK_PAYER_NAME: must be written in Latin letters/,
    );
    const account = { PAYOUT_DESK_PAYER_IBAN: "DE89370400440532013000", PAYOUT_DESK_PAYER_BIC: "COBADEFFXXX" };
    expect(readEnv({ ...account, PAYOUT_DESK_PAYER_NAME: "Studio Émile" }).PAYOUT_DESK_PAYER_NAME).toBe("Studio Émile");
    for (const name of ["Großhandel Spiele GmbH", "Ørsted Spil ApS", "Łódź Games"])
      expect(readEnv({ ...account, PAYOUT_DESK_PAYER_NAME: name }).PAYOUT_DESK_PAYER_NAME).toBe(name);
    // Part of it in another script would lose those letters; over 70 characters, be cut.
    expect(() => readEnv({ ...account, PAYOUT_DESK_PAYER_NAME: "Студия Example GmbH" })).toThrow(/Latin letters/);
    expect(() => readEnv({ ...account, PAYOUT_DESK_PAYER_NAME: "S".repeat(71) })).toThrow(/at most 70 characters/);
  });

  it("takes the payer's town and country together, with the account they are the address of", () => {
    const payer = {
      PAYOUT_DESK_PAYER_NAME: "Studio Ltd",
      PAYOUT_DESK_PAYER_IBAN: "DE89370400440532013000",
      PAYOUT_DESK_PAYER_BIC: "COBADEFFXXX",
    };
    expect(readEnv({ ...payer, PAYOUT_DESK_PAYER_TOWN: " Zürich ", PAYOUT_DESK_PAYER_COUNTRY: "ch" })).toMatchObject({
      PAYOUT_DESK_PAYER_TOWN: "Zürich",
      PAYOUT_DESK_PAYER_COUNTRY: "CH",
    });
    expect(() => readEnv({ ...payer, PAYOUT_DESK_PAYER_TOWN: "Zürich" })).toThrow(
      /^Invalid environment variable PAYOUT_DESK_PAYER_TOWN: the payer's address needs both/,
    );
    expect(() => readEnv({ PAYOUT_DESK_PAYER_TOWN: "Zürich", PAYOUT_DESK_PAYER_COUNTRY: "CH" })).toThrow(
      /PAYOUT_DESK_PAYER_TOWN: is the address of the payer account: set PAYOUT_DESK_PAYER_NAME/,
    );
    const address = { ...payer, PAYOUT_DESK_PAYER_COUNTRY: "CH" };
    expect(() => readEnv({ ...address, PAYOUT_DESK_PAYER_TOWN: "T".repeat(36) })).toThrow(/at most 35 characters/);
    expect(() => readEnv({ ...address, PAYOUT_DESK_PAYER_TOWN: "東京" })).toThrow(/Latin letters/);
    expect(() => readEnv({ ...payer, PAYOUT_DESK_PAYER_TOWN: "Bern", PAYOUT_DESK_PAYER_COUNTRY: "Swiss" })).toThrow(
      /PAYOUT_DESK_PAYER_COUNTRY: must be a two-letter country code/,
    );
  });

  it("refuses an SMTP_URL the mail library cannot read, without repeating it", () => {
    // An SES password holds "/": not percent-encoded, the host would be read as "AKIAEXAMPLE" with a port "BPk1aB3".
    const url = "smtp://AKIAEXAMPLE:BPk1aB3/Xy+zq9SECRET@email-smtp.eu-west-1.amazonaws.com:587";
    expect(() => readEnv({ SMTP_URL: url })).toThrow(
      /^Invalid environment variable SMTP_URL: is not a URL the mail library can read: .* percent-encoded/,
    );
    expect(() => readEnv({ SMTP_URL: url })).not.toThrow(/SECRET/);
    // Digits before the "/": read as a host "u", a port and a path.
    expect(() => readEnv({ SMTP_URL: "smtp://u:2024/abc@mail.example:587" })).toThrow(/percent-encoded/);
    const encoded = "smtp://AKIAEXAMPLE:BPk1aB3%2FXy%2Bzq9SECRET@email-smtp.eu-west-1.amazonaws.com:587";
    expect(readEnv({ SMTP_URL: encoded }).SMTP_URL).toBe(encoded);
  });

  it("refuses a DATABASE_URL that is not a postgres:// URL, without repeating it", () => {
    // The scheme forgotten: read as a URL of scheme "payout:", its password and host in what would be its path.
    for (const url of ["payout:s3cret@db.example.com/payouts", "mysql://u:s3cret@db.example.com/payouts"]) {
      expect(() => readEnv({ DATABASE_URL: url }), url).toThrow(
        /^Invalid environment variable DATABASE_URL: .*postgres/,
      );
      expect(() => readEnv({ DATABASE_URL: url }), url).not.toThrow(/s3cret/);
      expect(databaseAddress(url)).toBeNull();
    }
    for (const url of ["postgres://u:s3cret@db.example.com/payouts", "postgresql://u@db.example.com:6432/payouts"])
      expect(readEnv({ DATABASE_URL: url }).DATABASE_URL).toBe(url);
    expect(databaseAddress("postgresql://u:s3cret@db.example.com:6432/payouts")).toBe("db.example.com:6432/payouts");
    expect(databaseAddress("postgres:///payouts?host=/var/run/postgresql")).toBe("/var/run/postgresql:5432/payouts");
  });

  it("reads a variable set to nothing as not set: its default, never 0", () => {
    expect(readEnv({ PAYOUT_DESK_PULL_RETRY_MINUTES: "" }).PAYOUT_DESK_PULL_RETRY_MINUTES).toBe(15);
    const blank = readEnv({ PAYOUT_DESK_KEY_PREVIOUS: "", SMTP_URL: "" });
    expect([blank.PAYOUT_DESK_KEY_PREVIOUS, blank.SMTP_URL]).toEqual([undefined, undefined]);
  });

  it("reads the desk's address as its origin, and refuses one that is not an http(s) address alone", () => {
    expect(readEnv({ PAYOUT_DESK_URL: "HTTPS://Desk.Example.com/" }).PAYOUT_DESK_URL).toBe("https://desk.example.com");
    expect(readEnv({ PAYOUT_DESK_URL: "http://localhost:3000" }).PAYOUT_DESK_URL).toBe("http://localhost:3000");
    for (const url of ["javascript:alert(1)", "ftp://desk.example.com", "desk.example.com"])
      expect(() => readEnv({ PAYOUT_DESK_URL: url }), url).toThrow(/PAYOUT_DESK_URL.*http or https address/);
    for (const url of ["https://desk.example.com/?x=1", "https://desk.example.com/desk", "https://desk.example.com/#a"])
      expect(() => readEnv({ PAYOUT_DESK_URL: url }), url).toThrow(/PAYOUT_DESK_URL.*no path, query or fragment/);
    for (const url of ["https://u:p@desk.example.com", "https://u@desk.example.com/desk"])
      expect(() => readEnv({ PAYOUT_DESK_URL: url }), url).toThrow(/PAYOUT_DESK_URL.*user name or password/);
  });

  it("reads how long a stopping server lets downloads go on as whole seconds, 30 unless set", () => {
    expect(readEnv({}).PAYOUT_DESK_DRAIN_SECONDS).toBe(30);
    expect(readEnv({ PAYOUT_DESK_DRAIN_SECONDS: "" }).PAYOUT_DESK_DRAIN_SECONDS).toBe(30);
    expect(readEnv({ PAYOUT_DESK_DRAIN_SECONDS: "120" }).PAYOUT_DESK_DRAIN_SECONDS).toBe(120);
    expect(readEnv({ PAYOUT_DESK_DRAIN_SECONDS: "0" }).PAYOUT_DESK_DRAIN_SECONDS).toBe(0);
    for (const seconds of ["1e3", "-5", "2.5", "30s", "3601"])
      expect(() => readEnv({ PAYOUT_DESK_DRAIN_SECONDS: seconds }), seconds).toThrow(
        /^Invalid environment variable PAYOUT_DESK_DRAIN_SECONDS: must be a whole number of seconds from 0 to 3600$/,
      );
  });

  it("reads PORT as digits only, from 1 to 65535", () => {
    expect(readEnv({ PORT: "8080" }).PORT).toBe(8080);
    expect(readEnv({}).PORT).toBe(3000);
    for (const port of ["0x1F90", "8e3", "3000abc", "80.9", "0", "65536", "-1"])
      expect(() => readEnv({ PORT: port }), port).toThrow(/PORT.*port number from 1 to 65535/);
  });
});
