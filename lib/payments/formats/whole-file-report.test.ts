import { describe, expect, it } from "vitest";
import { pain001FileName, pain001MessageIdOf, pain001MessageStem } from "./pain001";
import { readResults, refuseReportOfFile, type SepaFileOfBatch } from "./read";

/** A pain.002 that stops at the file's own status: what it says of the file, and that it is not "nothing to do". */
function report(groupStatus: string, reason = "", messageId: string | null = "PD-202611-0a1b2c3d-EUR"): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10"><CstmrPmtStsRpt>
  <GrpHdr><MsgId>STS-9</MsgId><CreDtTm>2026-11-26T09:15:00Z</CreDtTm></GrpHdr>
  <OrgnlGrpInfAndSts>${messageId === null ? "" : `<OrgnlMsgId>${messageId}</OrgnlMsgId>`}
    <OrgnlMsgNmId>pain.001.001.09</OrgnlMsgNmId>
    <GrpSts>${groupStatus}</GrpSts>${reason ? `<StsRsnInf><Rsn><Cd>${reason}</Cd></Rsn></StsRsnInf>` : ""}
  </OrgnlGrpInfAndSts>
</CstmrPmtStsRpt></Document>`;
}

/** The batch's SEPA file the reports above answer, named as lib/payments/files.ts names it. */
const ours: SepaFileOfBatch = {
  fileName: pain001FileName("PD-202611-0a1b2c3d", "EUR"),
  messageId: pain001MessageIdOf(pain001FileName("PD-202611-0a1b2c3d", "EUR")),
  status: "live",
};

function judge(text: string, files: readonly SepaFileOfBatch[] = [ours]): () => never {
  const readout = readResults("pain002", text);
  const whole = readout.wholeFileReport;
  if (!whole) throw new Error("read as naming transactions");
  return () => refuseReportOfFile(whole, files);
}

describe("a status report naming no transaction", () => {
  it("names the file by the MsgId its pain.001 carries", () => {
    expect(ours.messageId).toBe(`${pain001MessageStem("PD-202611-0a1b2c3d")}-EUR`);
    expect(ours.messageId).toBe("PD-202611-0a1b2c3d-EUR");
    expect(pain001MessageIdOf("PD-202611-0a1b2c3d-paypal-USD.csv")).toBeNull();
  });

  it("refuses a rejection of the whole file, naming it and saying nothing was paid and what to do", () => {
    // AM04: insufficient funds (AM05, a duplicate, says the bank has the file already: see the next test).
    expect(judge(report("RJCT", "AM04"))).toThrow(
      "The bank rejected the whole payment file PD-202611-0a1b2c3d-pain001-EUR.xml (RJCT (AM04)) and lists no " +
        "transaction: nothing was paid. Cancel that file here (its statements are owed again), correct the cause " +
        "and make a new one.",
    );
  });

  it("refuses a rejection as a duplicate without telling anyone the file paid nothing or to cancel it", () => {
    for (const code of ["AM05", "DU01", "DUPL"]) {
      const duplicate = judge(report("RJCT", code));
      expect(duplicate).toThrow(
        `The bank rejected the payment file PD-202611-0a1b2c3d-pain001-EUR.xml as a duplicate (RJCT (${code})): it ` +
          "reports having the file already, from an earlier upload, whose payments stand.",
      );
      expect(duplicate).not.toThrow(/nothing was paid|Cancel that file/);
    }
  });

  it("reads a partly accepted report payment by payment, though one of its blocks is rejected", () => {
    const tx = (reference: string, status: string) =>
      `<TxInfAndSts><OrgnlEndToEndId>${reference}</OrgnlEndToEndId><TxSts>${status}</TxSts>
        <OrgnlTxRef><Amt><InstdAmt Ccy="EUR">10.00</InstdAmt></Amt></OrgnlTxRef></TxInfAndSts>`;
    const text = report("PART").replace(
      "</CstmrPmtStsRpt>",
      `<OrgnlPmtInfAndSts><OrgnlPmtInfId>P1</OrgnlPmtInfId><PmtInfSts>RJCT</PmtInfSts>${tx("REF-1", "RJCT")}
      </OrgnlPmtInfAndSts><OrgnlPmtInfAndSts><OrgnlPmtInfId>P2</OrgnlPmtInfId><PmtInfSts>ACSC</PmtInfSts>
      ${tx("REF-2", "ACSC")}</OrgnlPmtInfAndSts></CstmrPmtStsRpt>`,
    );
    const readout = readResults("pain002", text);
    expect(readout.wholeFileReport).toBeUndefined();
    expect(readout.results.map((r) => [r.reference, r.outcome])).toEqual([
      ["REF-1", "rejected"],
      ["REF-2", "paid"],
    ]);
  });

  it("refuses a rejection of another batch's file without telling anyone to cancel a file of this batch", () => {
    const other = judge(report("RJCT", "AM05", "PD-202610-99999999-EUR"));
    expect(other).toThrow(
      "This status report answers message PD-202610-99999999-EUR, which is not a SEPA file of this batch (its SEPA " +
        "files: PD-202611-0a1b2c3d-pain001-EUR.xml): nothing is imported.",
    );
    expect(other).not.toThrow(/Cancel/);
    expect(judge(report("RJCT", "AM05", "PD-202610-99999999-EUR"), [])).toThrow(/batch \(it has none\)/);
  });

  it("says a rejected file already cancelled needs nothing, and a report naming no file says so", () => {
    expect(judge(report("RJCT"), [{ ...ours, status: "cancelled" }])).toThrow(/cancelled here already: nothing to do/);
    expect(judge(report("RJCT", "", null))).toThrow(
      /rejected the whole payment file \(the report does not name it: no OrgnlMsgId\).*Cancel the file it answers/,
    );
  });

  it("says a settlement of a file cancelled here may pay twice; a rejection of a settled one changes nothing", () => {
    expect(judge(report("ACSC"), [{ ...ours, status: "cancelled" }])).toThrow(
      /settled \(ACSC\), but it was cancelled here: .* may be paid twice\. Nothing is applied/,
    );
    expect(judge(report("RJCT"), [{ ...ours, status: "completed" }])).toThrow(
      /rejected \(RJCT\), but every payment in it already has its result here: nothing is changed/,
    );
  });

  it("refuses a settlement of the whole file, saying how to record its payments", () => {
    expect(judge(report("ACSC"))).toThrow(
      new RegExp(
        "file PD-202611-0a1b2c3d-pain001-EUR\\.xml settled \\(ACSC\\) without listing its transactions: " +
          "nothing is applied from it\\. .* as generic results",
      ),
    );
  });

  it("refuses an acceptance of the file as nothing to import yet", () => {
    expect(judge(report("ACTC"))).toThrow(
      "This status report lists no transaction (the file's status: ACTC): nothing to import yet.",
    );
  });

  it("judges only a report that names no transaction as about the whole file", () => {
    const text = report("PART").replace(
      "</OrgnlGrpInfAndSts>",
      "</OrgnlGrpInfAndSts><OrgnlPmtInfAndSts><OrgnlPmtInfId>X</OrgnlPmtInfId><TxInfAndSts><TxSts>ZZZZ</TxSts>" +
        "</TxInfAndSts></OrgnlPmtInfAndSts>",
    );
    const readout = readResults("pain002", text);
    expect(readout.wholeFileReport).toBeUndefined();
    expect(readout.unreadable).toHaveLength(1);
  });
});
