import "server-only";
import path from "node:path";
import { Document, Font, Page, renderToBuffer, StyleSheet, Text, View } from "@react-pdf/renderer";
import { windowDaysText, windowUtcText } from "@/core/time";
import { formatUsdText } from "@/lib/format";
import { convertedText, REPORTED_AGAIN, type StatementDocument } from "./model";
import { money } from "@/core/money";

/**
 * The statement as PDF (@react-pdf/renderer, no browser). Noto Sans is embedded from its npm package so that names
 * in Greek, Cyrillic or Vietnamese print as written. The creation date is the batch's approval and every other
 * metadata field is fixed, so the same statement renders to the same bytes (and the same SHA-256).
 */
const FONT_DIR = path.join(process.cwd(), "node_modules", "@expo-google-fonts", "noto-sans");
const FAMILY = "Noto Sans";
let fontsRegistered = false;

function registerFonts(): void {
  if (fontsRegistered) return;
  Font.register({
    family: FAMILY,
    fonts: [
      { src: path.join(FONT_DIR, "400Regular", "NotoSans_400Regular.ttf"), fontWeight: 400 },
      { src: path.join(FONT_DIR, "700Bold", "NotoSans_700Bold.ttf"), fontWeight: 700 },
    ],
  });
  // Words are never split with a hyphen: ids and references must print whole.
  Font.registerHyphenationCallback((word) => [word]);
  fontsRegistered = true;
}

const styles = StyleSheet.create({
  page: { fontFamily: FAMILY, fontSize: 9, padding: 36, color: "#111" },
  header: { flexDirection: "row", justifyContent: "space-between", marginBottom: 16 },
  // Widths set, not left to the row: a long studio name or address wraps in its own column.
  issuer: { width: "60%", paddingRight: 12 },
  heading: { width: "40%", alignItems: "flex-end" },
  title: { fontSize: 16, fontWeight: 700 },
  h2: { fontSize: 11, fontWeight: 700, marginTop: 14, marginBottom: 4 },
  row: { flexDirection: "row", borderBottom: "0.5pt solid #ddd", paddingVertical: 2 },
  label: { width: "60%" },
  amount: { width: "40%", textAlign: "right" },
  strong: { fontWeight: 700 },
  cell: { paddingRight: 4 },
  muted: { color: "#555" },
  footer: { position: "absolute", bottom: 20, left: 36, right: 36, fontSize: 7, color: "#555" },
});

function usd(value: string): string {
  return formatUsdText(value);
}

function Line({ label, value, strong }: { label: string; value: string; strong?: boolean }) {
  return (
    <View style={styles.row} wrap={false}>
      <Text style={[styles.label, strong ? styles.strong : {}]}>{label}</Text>
      <Text style={[styles.amount, strong ? styles.strong : {}]}>{value}</Text>
    </View>
  );
}

function Table({ widths, head, rows }: { widths: string[]; head: string[]; rows: string[][] }) {
  return (
    <View>
      <View style={[styles.row, styles.strong]} fixed>
        {head.map((h, i) => (
          <Text key={h} style={[styles.cell, { width: widths[i] }]}>
            {h}
          </Text>
        ))}
      </View>
      {rows.map((r, n) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows are static, in a fixed order
        <View key={n} style={styles.row} wrap={false}>
          {r.map((c, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: cells are static, in a fixed order
            <Text key={i} style={[styles.cell, { width: widths[i] }]}>
              {c}
            </Text>
          ))}
        </View>
      ))}
    </View>
  );
}

function Payment({ doc }: { doc: StatementDocument }) {
  const p = doc.payment;
  if (p.state === "returned" && p.undone)
    return (
      <View>
        <Line label="Payment" value="Not sent (recorded by mistake): owed to you" strong />
        <Line label="Recorded paid" value={`${usd(p.returnedUsd)} on ${p.paidOn ?? "—"}`} />
        <Line label="Reference" value={p.reference ?? "—"} />
        <Line label="Undone" value={p.returnedOn} />
        <Line label="Reason" value={p.reason} />
      </View>
    );
  if (p.state === "returned")
    return (
      <View>
        <Line label="Payment" value="Returned: owed to you again" strong />
        <Line label="Paid" value={`${usd(p.returnedUsd)} on ${p.paidOn ?? "—"}`} />
        <Line label="Method" value={p.method ?? "—"} />
        <Line label="Reference" value={p.reference ?? "—"} />
        <Line label="Returned" value={`${usd(p.returnedUsd)} on ${p.returnedOn}`} />
        <Line label="Reason" value={p.reason} />
      </View>
    );
  if (p.state !== "paid")
    return (
      <View>
        <Line label="Payment" value={p.state === "unpaid" ? "Not yet paid" : p.state === "held" ? "Held" : "Carried"} />
        <Line label="Reason" value={p.reason} />
      </View>
    );
  return (
    <View>
      <Line label="Paid" value={usd(doc.figures.payableUsd)} strong />
      {p.converted && <Line label="Sent as" value={convertedText(p.converted)} />}
      {p.providerNote && <Line label="On the way" value={p.providerNote} />}
      <Line label="Date" value={p.paidOn ?? "—"} />
      <Line label="Method" value={p.method ?? "—"} />
      <Line label="Account" value={p.account} />
      <Line label="Reference" value={p.reference ?? "—"} />
    </View>
  );
}

/**
 * A table of more rows than this is laid out on pages of its own, ROWS_PER_PAGE rows to a page, with its heading and
 * a line saying so in its place. The layout engine fits a page's overflow by splitting what is left again for each new
 * page, so one long table flowing through the document costs time growing with the square of its length (a statement
 * of 1,000 renewals took 10.7 s to lay out); pages of a bounded number of rows keep it linear (2.4 s). A row too tall
 * for its page still flows onto the next one.
 */
const INLINE_ROWS = 20;
const ROWS_PER_PAGE = 40;

type TableSection = { title: string; widths: string[]; head: string[]; rows: string[][]; empty: string | null };

function tableSections(doc: StatementDocument): TableSection[] {
  const carriedIn: TableSection = {
    title: "Carried in",
    widths: ["40%", "40%", "20%"],
    head: ["From statement", "Window", "Amount"],
    rows: doc.carriedIn.map((c) => [c.fromLabel ?? "—", windowDaysText(c.windowStart, c.windowEnd), usd(c.amountUsd)]),
    empty: null,
  };
  return [
    ...(carriedIn.rows.length > 0 ? [carriedIn] : []),
    {
      title: "Reversals",
      widths: ["30%", "15%", "35%", "20%"],
      head: ["Subscription", "Refunded", "From window", "Deducted"],
      rows: doc.reversals.map((r) => [
        `${r.subscriptionId} #${r.periodId}`,
        r.refundedAt ?? "—",
        r.fromWindow ?? "—",
        usd(r.reversedUsd),
      ]),
      empty: "None in this window.",
    },
    {
      title: "Renewals",
      widths: ["32%", "14%", "20%", "14%", "20%"],
      head: ["Subscription", "Paid", "Item", "Share", "Attributed"],
      rows: doc.renewals.lines.map((l) => [
        `${l.subscriptionId} #${l.periodId}`,
        l.paidAt ?? "—",
        l.item,
        l.percent ? `${l.percent}%` : "—",
        l.attributedUsd === null ? (l.note ?? "—") : usd(l.attributedUsd),
      ]),
      empty: "None in this window.",
    },
  ];
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** A section on the first page: its table, or the line saying where it is or that it is empty. */
function InlineSection({ section }: { section: TableSection }) {
  const count = section.rows.length;
  return (
    <>
      <Text style={styles.h2}>{section.title}</Text>
      {count === 0 ? (
        <Text style={styles.muted}>{section.empty}</Text>
      ) : count > INLINE_ROWS ? (
        <Text style={styles.muted}>{count} lines, on the pages that follow.</Text>
      ) : (
        <Table widths={section.widths} head={section.head} rows={section.rows} />
      )}
    </>
  );
}

function Footer({ label }: { label: string }) {
  return (
    <Text
      style={styles.footer}
      fixed
      render={({ pageNumber, totalPages }) => `${label} · page ${pageNumber} of ${totalPages}`}
    />
  );
}

function StatementPdf({ doc }: { doc: StatementDocument }) {
  const f = doc.figures;
  const window = windowUtcText(doc.window.start, doc.window.end);
  const sections = tableSections(doc);
  return (
    <Document
      title={`Statement ${doc.label}`}
      author={doc.issuer.name}
      subject="Revenue share statement"
      creator="Payout Desk"
      producer="Payout Desk"
      creationDate={new Date(doc.issuedAt)}
      modificationDate={new Date(doc.issuedAt)}
      language="en"
    >
      <Page size="A4" style={styles.page}>
        <View style={styles.header}>
          <View style={styles.issuer}>
            <Text style={styles.title}>{doc.issuer.name}</Text>
            {doc.issuer.address ? <Text style={styles.muted}>{doc.issuer.address}</Text> : null}
          </View>
          <View style={styles.heading}>
            <Text style={styles.strong}>Revenue share statement</Text>
            <Text>No. {doc.label}</Text>
            <Text>Issued {doc.issuedAt.slice(0, 10)}</Text>
          </View>
        </View>
        <Text style={styles.h2}>Recipient</Text>
        <Text>{doc.recipient.name ?? "Name not on record"}</Text>
        <Text>Player #{doc.recipient.playerId}</Text>
        {doc.recipient.email ? <Text>{doc.recipient.email}</Text> : null}
        <Text style={styles.h2}>Window {window}</Text>
        <Line label="Carried in from earlier statements" value={usd(f.carriedInUsd)} />
        <Line
          label={`Renewals: ${doc.renewals.count} (${doc.renewals.subscriptionCount} subscriptions)`}
          value={usd(f.grossAttributedUsd)}
        />
        <Line label={`Reversals deducted: ${doc.reversals.length}`} value={usd(f.reversedAttributedUsd)} />
        {money(f.reversedBeforeUsd).isZero() ? null : (
          <Line label={`Of the reversals listed, ${REPORTED_AGAIN}`} value={usd(f.reversedBeforeUsd)} />
        )}
        <Line label="Net for the window" value={usd(f.netAttributedUsd)} />
        <Line label="Available" value={usd(f.availableUsd)} />
        <Line label={`Rolled over under the minimum of ${usd(f.minPayoutUsd)}`} value={usd(f.rolledOverUsd)} />
        <Line label="Payable" value={usd(f.payableUsd)} strong />
        <Line label="Carried out to the next statement" value={usd(f.carriedOutUsd)} />
        <Text style={styles.h2}>Payment</Text>
        <Payment doc={doc} />
        {sections.map((section) => (
          <InlineSection key={section.title} section={section} />
        ))}
        <Footer label={doc.label} />
      </Page>
      {sections.flatMap((section) =>
        section.rows.length > INLINE_ROWS
          ? chunks(section.rows, ROWS_PER_PAGE).map((rows, n) => (
              <Page key={`${section.title}-${rows[0]?.[0] ?? n}`} size="A4" style={styles.page}>
                <Text style={styles.h2}>
                  {section.title}
                  {n > 0 ? " (continued)" : ""}
                </Text>
                <Table widths={section.widths} head={section.head} rows={rows} />
                <Footer label={doc.label} />
              </Page>
            ))
          : [],
      )}
    </Document>
  );
}

/** Lays out one statement's PDF on the calling thread (lib/statements/pdf-thread.ts, the layout thread's). */
export async function layoutStatementPdf(doc: StatementDocument): Promise<Buffer> {
  registerFonts();
  return renderToBuffer(<StatementPdf doc={doc} />);
}

/**
 * Loads the PDF library's layout engine and both fonts by rendering a line in each weight: the first statement
 * laid out after a start otherwise pays for that.
 */
export async function warmLayout(): Promise<void> {
  registerFonts();
  await renderToBuffer(
    <Document>
      <Page style={styles.page}>
        <Text>Payout Desk</Text>
        <Text style={styles.strong}>Payout Desk</Text>
      </Page>
    </Document>,
  );
}
