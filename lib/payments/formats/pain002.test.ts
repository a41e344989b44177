import { describe, expect, it } from "vitest";
import { readPain002 } from "./pain002";

/** Hand-written status reports shaped as ISO 20022 pain.002 is specified (prefixed namespace, BOM, CRLF included). */
const REPORT = `\uFEFF<?xml version="1.0" encoding="UTF-8"?>\r
<p:Document xmlns:p="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10">\r
  <p:CstmrPmtStsRpt>\r
    <p:GrpHdr><p:MsgId>STS-1</p:MsgId><p:CreDtTm>2026-11-26T09:15:00Z</p:CreDtTm></p:GrpHdr>\r
    <p:OrgnlGrpInfAndSts>\r
      <p:OrgnlMsgId>PD-20261122-0001-EUR</p:OrgnlMsgId><p:OrgnlMsgNmId>pain.001.001.09</p:OrgnlMsgNmId>\r
      <p:GrpSts>PART</p:GrpSts>\r
    </p:OrgnlGrpInfAndSts>\r
    <p:OrgnlPmtInfAndSts>\r
      <p:OrgnlPmtInfId>PD-20261122-0001-EUR-1</p:OrgnlPmtInfId>\r
      <p:PmtInfSts>PART</p:PmtInfSts>\r
      <p:TxInfAndSts>\r
        <p:OrgnlEndToEndId>R-000001</p:OrgnlEndToEndId><p:TxSts>ACSC</p:TxSts>\r
        <p:AcctSvcrRef>BANK-REF-1</p:AcctSvcrRef>\r
        <p:ChrgsInf><p:Amt Ccy="EUR">0.20</p:Amt></p:ChrgsInf>\r
        <p:OrgnlTxRef><p:Amt><p:InstdAmt Ccy="EUR">849.95</p:InstdAmt></p:Amt></p:OrgnlTxRef>\r
      </p:TxInfAndSts>\r
      <p:TxInfAndSts>\r
        <p:OrgnlEndToEndId>R-000002</p:OrgnlEndToEndId><p:TxSts>RJCT</p:TxSts>\r
        <p:StsRsnInf><p:Rsn><p:Cd>AC04</p:Cd></p:Rsn><p:AddtlInf>Account closed &amp; gone</p:AddtlInf></p:StsRsnInf>\r
        <p:OrgnlTxRef><p:Amt><p:InstdAmt Ccy="EUR">10.00</p:InstdAmt></p:Amt></p:OrgnlTxRef>\r
      </p:TxInfAndSts>\r
      <p:TxInfAndSts><p:OrgnlEndToEndId>R-000003</p:OrgnlEndToEndId><p:TxSts>ACCP</p:TxSts></p:TxInfAndSts>\r
      <p:TxInfAndSts><p:TxSts>ACSC</p:TxSts></p:TxInfAndSts>\r
      <p:TxInfAndSts><p:OrgnlEndToEndId>R-000005</p:OrgnlEndToEndId><p:TxSts>WHAT</p:TxSts></p:TxInfAndSts>\r
      <p:TxInfAndSts>\r
        <p:OrgnlEndToEndId>R-000006</p:OrgnlEndToEndId><p:TxSts>ACSC</p:TxSts>\r
        <p:OrgnlTxRef><p:Amt><p:InstdAmt Ccy="EUR">ten</p:InstdAmt></p:Amt></p:OrgnlTxRef>\r
      </p:TxInfAndSts>\r
      <p:Unknown>ignored</p:Unknown>\r
    </p:OrgnlPmtInfAndSts>\r
    <p:OrgnlPmtInfAndSts>\r
      <p:OrgnlPmtInfId>PD-20261122-0001-EUR-2</p:OrgnlPmtInfId>\r
      <p:PmtInfSts>ACSC</p:PmtInfSts>\r
      <p:TxInfAndSts><p:OrgnlEndToEndId>R-000007</p:OrgnlEndToEndId></p:TxInfAndSts>\r
    </p:OrgnlPmtInfAndSts>\r
  </p:CstmrPmtStsRpt>\r
</p:Document>\r
`;

describe("pain.002 status report", () => {
  it("reads each transaction's status, reason, amount and fee by EndToEndId, and the group status", () => {
    const readout = readPain002(REPORT);
    expect(readout.group).toEqual({ id: "PD-20261122-0001-EUR", status: "PART", reasons: [] });
    expect(readout.paymentInformation.map((p) => p.status)).toEqual(["PART", "ACSC"]);
    expect(readout.results).toEqual([
      {
        reference: "R-000001",
        outcome: "paid",
        providerTransactionId: "BANK-REF-1",
        amount: "849.95",
        currency: "EUR",
        fee: "0.20",
        reason: null,
        rawStatus: "ACSC",
      },
      {
        reference: "R-000002",
        outcome: "rejected",
        providerTransactionId: null,
        amount: "10.00",
        currency: "EUR",
        fee: null,
        reason: "AC04: Account closed & gone",
        rawStatus: "RJCT",
      },
      {
        reference: "R-000003",
        outcome: "pending",
        providerTransactionId: null,
        amount: null,
        currency: null,
        fee: null,
        reason: null,
        rawStatus: "ACCP",
      },
      // No TxSts of its own: its payment information block's status applies.
      {
        reference: "R-000007",
        outcome: "paid",
        providerTransactionId: null,
        amount: null,
        currency: null,
        fee: null,
        reason: null,
        rawStatus: "ACSC",
      },
    ]);
    expect(readout.unreadable).toEqual([
      { line: 4, reason: "has no OrgnlEndToEndId of 1-35 characters" },
      { line: 5, reason: 'status "WHAT" is not one this reader knows' },
      { line: 6, reason: "amount is not an amount" },
    ]);
  });

  it("keeps a fee given with a minus sign as the charge it is, and refuses an amount in no currency", () => {
    const changed = REPORT.replace('<p:Amt Ccy="EUR">0.20</p:Amt>', '<p:Amt Ccy="EUR">-0.20</p:Amt>').replace(
      '<p:InstdAmt Ccy="EUR">10.00</p:InstdAmt>',
      '<p:InstdAmt Ccy="Euro">10.00</p:InstdAmt>',
    );
    const readout = readPain002(changed);
    expect(readout.results.find((r) => r.reference === "R-000001")).toMatchObject({ fee: "0.20" });
    expect(readout.results.map((r) => r.reference)).not.toContain("R-000002");
    expect(readout.unreadable).toContainEqual({ line: 2, reason: "amount's currency is not a currency code" });
  });

  it("reports a whole-message rejection at group level with its reason", () => {
    const xml = `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.03"><CstmrPmtStsRpt>
      <GrpHdr><MsgId>S</MsgId></GrpHdr>
      <OrgnlGrpInfAndSts><OrgnlMsgId>PD-1-EUR</OrgnlMsgId><GrpSts>RJCT</GrpSts>
        <StsRsnInf><Rsn><Cd>AM10</Cd></Rsn><AddtlInf>Invalid control sum</AddtlInf></StsRsnInf></OrgnlGrpInfAndSts>
      </CstmrPmtStsRpt></Document>`;
    expect(readPain002(xml)).toEqual({
      group: { id: "PD-1-EUR", status: "RJCT", reasons: ["AM10: Invalid control sum"] },
      paymentInformation: [],
      results: [],
      unreadable: [],
    });
  });

  it("reads a status reason that names only its originator as no reason", () => {
    const xml = REPORT.replace(
      "<p:StsRsnInf><p:Rsn><p:Cd>AC04</p:Cd></p:Rsn><p:AddtlInf>Account closed &amp; gone</p:AddtlInf></p:StsRsnInf>",
      "<p:StsRsnInf><p:Orgtr><p:Nm>Bank</p:Nm></p:Orgtr></p:StsRsnInf>" +
        "<p:StsRsnInf><p:AddtlInf> </p:AddtlInf></p:StsRsnInf>",
    );
    expect(readPain002(xml).results.find((r) => r.reference === "R-000002")).toMatchObject({
      outcome: "rejected",
      reason: null,
    });
  });

  it("says why it cannot read a file that is not XML or not a status report", () => {
    expect(readPain002("<Document><CstmrPmtStsRpt></Document>").unreadable[0]?.reason).toMatch(/^not well-formed XML/);
    // A NUL inside a reference: XML allows none, and the database could not store one.
    const nul = readPain002("<Document>\n<OrgnlEndToEndId>AB\u0000C</OrgnlEndToEndId></Document>");
    expect(nul.unreadable).toEqual([{ line: 2, reason: "not well-formed XML: a control character (U+0000)" }]);
    expect(readPain002("<Document><Other/></Document>").unreadable).toEqual([
      { line: 0, reason: "not a pain.002 status report (no CstmrPmtStsRpt)" },
    ]);
  });

  it("reads nothing of a file declaring a DOCTYPE (entities), saying why rather than failing", () => {
    const entities = [
      '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
      "<Document><CstmrPmtStsRpt><GrpHdr><MsgId>&x;</MsgId></GrpHdr></CstmrPmtStsRpt></Document>",
    ].join("");
    const laughs = [
      '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>',
      "<Document><CstmrPmtStsRpt><GrpHdr><MsgId>&b;</MsgId></GrpHdr></CstmrPmtStsRpt></Document>",
    ].join("");
    for (const xml of [entities, laughs]) {
      expect(readPain002(xml)).toMatchObject({
        results: [],
        unreadable: [{ line: 0, reason: "not a pain.002 status report (it declares a DOCTYPE)" }],
      });
    }
  });
});
