import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { planResults } from "./results-plan";

/** A pain.002 that stops at the file's own status: what it says of the file, and that it is not "nothing to do". */
function report(groupStatus: string, reason = ""): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10"><CstmrPmtStsRpt>
  <GrpHdr><MsgId>STS-9</MsgId><CreDtTm>2026-11-26T09:15:00Z</CreDtTm></GrpHdr>
  <OrgnlGrpInfAndSts><OrgnlMsgId>PD-20261122-0001-EUR</OrgnlMsgId><OrgnlMsgNmId>pain.001.001.09</OrgnlMsgNmId>
    <GrpSts>${groupStatus}</GrpSts>${reason ? `<StsRsnInf><Rsn><Cd>${reason}</Cd></Rsn></StsRsnInf>` : ""}
  </OrgnlGrpInfAndSts>
</CstmrPmtStsRpt></Document>`;
}

/** The report is read before anything is asked of the database: none is given. */
const noDatabase = new Proxy({} as Db, {
  get: () => {
    throw new Error("the database was asked");
  },
});

const plan = (text: string) => planResults(noDatabase, { gameId: "g", batchId: "b", format: "pain002", text });

describe("a status report naming no transaction", () => {
  it("refuses a rejection of the whole file, saying nothing was paid and what to do", async () => {
    await expect(plan(report("RJCT", "AM05"))).rejects.toThrow(
      "The bank rejected the whole payment file (RJCT (AM05)) and lists no transaction: nothing was paid. Cancel " +
        "the file here (its statements are owed again), correct the cause and make a new one.",
    );
  });

  it("refuses a settlement of the whole file, saying how to record its payments", async () => {
    await expect(plan(report("ACSC"))).rejects.toThrow(
      /settled \(ACSC\) without listing its transactions: nothing is applied from it\. .* as generic results/,
    );
  });

  it("refuses an acceptance of the file as nothing to import yet", async () => {
    await expect(plan(report("ACTC"))).rejects.toThrow(
      "This status report lists no transaction (the file's status: ACTC): nothing to import yet.",
    );
  });
});
