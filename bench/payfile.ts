// Benchmark of the payment-file modules (lib/payments/formats): writing the files for 20,000 statements in each
// format, and reading + matching 20,000 results of each results format, each as a ratio to PostgreSQL's own
// `COPY (select * from <temp table>) TO STDOUT (format csv)` of a temporary table holding the same cells, measured
// in the same run (the floor: the cheapest way the database itself turns those rows into text).
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import pg from "pg";
import { ensureDatabase } from "@/bin/runtime";
import { startCluster, withDatabase } from "@/db/embedded";
import { readGenericResults, writeGenericFiles } from "@/lib/payments/formats/generic";
import { writePain001Files } from "@/lib/payments/formats/pain001";
import { readPain002 } from "@/lib/payments/formats/pain002";
import { readPaypalResults, writePaypalFiles } from "@/lib/payments/formats/paypal";
import type { PaymentResult } from "@/lib/payments/formats/results";
import type { PayableItem } from "@/lib/payments/formats/types";
import { readWiseResults, writeWiseFiles } from "@/lib/payments/formats/wise";
import { copyOut } from "./export";
import { median } from "./median";

const N = 20_000;
const RUNS = 5;
const IBANS = ["DE89370400440532013000", "FR1420041010050500013M02606", "NL91ABNA0417164300", "AT611904300234573201"];
/** A bank of each IBAN's country. */
const BICS = ["COBADEFFXXX", "BNPAFRPPXXX", "ABNANL2AXXX", "BKAUATWWXXX"];

function time(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

function makeItems(kind: "email" | "bank"): PayableItem[] {
  return Array.from({ length: N }, (_, index) => {
    const i = index + 1;
    const cents = (i % 99_999) + 1;
    const usd = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
    return {
      reference: `BENCH-202610-${String(i).padStart(12, "0")}`,
      amountUsd: usd,
      currency: kind === "bank" ? "EUR" : "USD",
      convertedAmount: kind === "bank" ? usd : null,
      recipientName: `Créateur ${i}, "Studio"`,
      method:
        kind === "bank"
          ? {
              kind: "bank",
              iban: IBANS[i % 4] as string,
              bic: BICS[i % 4] as string,
              holder: `Zoë Łukasz ${i}`,
              country: (IBANS[i % 4] as string).slice(0, 2),
            }
          : { kind: "email", email: `creator${i}@bench.test` },
      note: "Revenue share October 2026",
    };
  });
}

/** The cells a format writes, row by row, for the COPY floor. */
function cellsOf(content: string, skipHeader: boolean): string[][] {
  const rows = parse(content) as string[][];
  return skipHeader ? rows.slice(1) : rows;
}

async function copyFloor(client: pg.Client, name: string, rows: string[][]): Promise<number> {
  const width = rows[0]?.length ?? 1;
  const columns = Array.from({ length: width }, (_, i) => `c${i} text`).join(", ");
  await client.query(`drop table if exists ${name}; create temp table ${name} (${columns})`);
  const arrays = Array.from({ length: width }, (_, c) => rows.map((r) => r[c] ?? ""));
  const unnest = arrays.map((_, c) => `$${c + 1}::text[]`).join(", ");
  await client.query(`insert into ${name} select * from unnest(${unnest})`, arrays);
  await copyOut(client, `copy (select * from ${name}) to stdout (format csv)`);
  const runs: number[] = [];
  for (let r = 0; r < RUNS; r++)
    runs.push(await timeAsync(() => copyOut(client, `copy (select * from ${name}) to stdout (format csv)`)));
  return median(runs);
}

function measure(fn: () => unknown): number {
  fn();
  const runs: number[] = [];
  for (let r = 0; r < RUNS; r++) runs.push(time(fn));
  return median(runs);
}

function match(results: PaymentResult[], statements: Map<string, number>): number {
  let matched = 0;
  for (const result of results) if (statements.has(result.reference)) matched += 1;
  return matched;
}

function pain002Of(references: string[]): string {
  let body = "";
  references.forEach((ref, i) => {
    const status = i % 10 === 0 ? "RJCT" : "ACSC";
    const reason = status === "RJCT" ? "<StsRsnInf><Rsn><Cd>AC04</Cd></Rsn></StsRsnInf>" : "";
    body +=
      `<TxInfAndSts><OrgnlEndToEndId>${ref}</OrgnlEndToEndId><TxSts>${status}</TxSts>${reason}` +
      `<OrgnlTxRef><Amt><InstdAmt Ccy="EUR">1.00</InstdAmt></Amt></OrgnlTxRef></TxInfAndSts>\n`;
  });
  return (
    '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10">' +
    "<CstmrPmtStsRpt><GrpHdr><MsgId>S</MsgId></GrpHdr><OrgnlGrpInfAndSts><OrgnlMsgId>M</OrgnlMsgId>" +
    "<GrpSts>PART</GrpSts></OrgnlGrpInfAndSts><OrgnlPmtInfAndSts><OrgnlPmtInfId>P</OrgnlPmtInfId>\n" +
    `${body}</OrgnlPmtInfAndSts></CstmrPmtStsRpt></Document>`
  );
}

export async function run(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "payfile-bench-"));
  await chmod(dir, 0o755);
  const cluster = await startCluster({
    clusterDir: path.join(dir, "postgres"),
    password: randomBytes(12).toString("base64url"),
    durable: false,
  });
  const client = new pg.Client({ connectionString: withDatabase(cluster.url, "payfile_bench") });
  try {
    await ensureDatabase(cluster.url, "payfile_bench");
    await client.connect();
    const email = makeItems("email");
    const bank = makeItems("bank");
    const settings = {
      baseName: "bench",
      messageId: "BENCH-1",
      createdAt: new Date(),
      executionDate: "2026-11-25",
      initiatingPartyName: "Payout Desk",
      debtor: { name: "Payout Desk", iban: "DE89370400440532013000", bic: "COBADEFFXXX" },
    };
    const rows: { name: string; ms: number; floorMs: number }[] = [];
    const writers: [string, () => { content: string }[], boolean][] = [
      ["PayPal Payouts Web CSV (4 parts)", () => writePaypalFiles(email, { baseName: "bench" }), false],
      ["Wise batch CSV (20 parts, bank columns)", () => writeWiseFiles(bank, { baseName: "bench" }), true],
      ["Generic CSV", () => writeGenericFiles(email, { baseName: "bench" }), true],
    ];
    for (const [name, write, header] of writers) {
      const ms = measure(write);
      const cells = write().flatMap((f) => cellsOf(f.content, header));
      rows.push({ name: `write ${name}`, ms, floorMs: await copyFloor(client, "cells", cells) });
    }
    {
      const ms = measure(() => writePain001Files(bank, settings));
      // The same cells a transfer carries: reference, amount, currency, BIC, name, country, IBAN, remittance text.
      const cells = bank.map((item) => {
        const m = item.method as Extract<PayableItem["method"], { kind: "bank" }>;
        return [item.reference, item.convertedAmount ?? "", "EUR", m.bic ?? "", m.holder, m.country, m.iban, item.note];
      });
      rows.push({
        name: "write ISO 20022 pain.001.001.09 (SEPA)",
        ms,
        floorMs: await copyFloor(client, "cells", cells),
      });
    }

    const statements = new Map(email.map((item, i) => [item.reference, i]));
    const refs = email.map((item) => item.reference);
    const statuses = ["SUCCESS", "PENDING", "UNCLAIMED", "RETURNED", "FAILED"];
    let paypal = "Transaction ID,Customer ID,Recipient,Amount,Currency,Fee,Status\r\n";
    let wise = "id,status,targetValue,targetCurrency,reference,fee\r\n";
    let generic = "reference,outcome,provider_transaction_id,amount,currency,fee,reason\r\n";
    const paypalCells: string[][] = [];
    refs.forEach((ref, i) => {
      const row = [`TX${i}`, ref, `creator${i}@bench.test`, "1.00", "USD", "0.25", statuses[i % 5] as string];
      paypalCells.push(row);
      paypal += `${row.join(",")}\r\n`;
      wise += `${i},outgoing_payment_sent,1.00,EUR,${ref},0.41\r\n`;
      generic += `${ref},paid,T${i},1.00,USD,0.10,\r\n`;
    });
    const xml = pain002Of(refs);
    const readers: [string, () => PaymentResult[], string[][]][] = [
      ["PayPal results CSV", () => readPaypalResults(paypal).results, paypalCells],
      ["Wise results CSV", () => readWiseResults(wise).results, cellsOf(wise, true)],
      ["Generic results CSV", () => readGenericResults(generic).results, cellsOf(generic, true)],
      [
        "ISO 20022 pain.002",
        () => readPain002(xml).results,
        refs.map((ref, i) => [ref, i % 10 === 0 ? "RJCT" : "ACSC", i % 10 === 0 ? "AC04" : "", "1.00", "EUR"]),
      ],
    ];
    for (const [name, read, cells] of readers) {
      const check = read();
      if (check.length !== N || match(check, statements) !== N)
        throw new Error(`${name}: read ${check.length} results`);
      const ms = measure(() => match(read(), statements));
      rows.push({ name: `parse + match ${name}`, ms, floorMs: await copyFloor(client, "cells", cells) });
    }

    process.stdout.write(`\nPayment files, ${N.toLocaleString("en")} statements; median of ${RUNS} runs each\n\n`);
    process.stdout.write("| Work | time | COPY of the same cells | ratio |\n|---|---|---|---|\n");
    for (const r of rows) {
      process.stdout.write(
        `| ${r.name} | ${r.ms.toFixed(0)} ms | ${r.floorMs.toFixed(0)} ms | ${(r.ms / r.floorMs).toFixed(1)}× |\n`,
      );
    }
  } finally {
    await client.end().catch(() => {});
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
