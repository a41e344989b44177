"use client";

import { useState } from "react";
import { SpreadsheetOption, withBom } from "@/app/_components/forms/spreadsheet-option";
import { buttonClassName } from "@/app/_components/ui/button-styles";

/** A download, or with `page` a page that lists downloads (a large batch's Xero parts). */
export type ExportLink = { kind: string; label: string; query: string; unavailable: string | null; page?: string };

/** The files made for a ledger's import, which reads them as written: no byte-order mark before their header. */
const LEDGER_IMPORTS = new Set(["journal-xero", "journal-quickbooks"]);

/**
 * The window's CSV downloads: a link for each export that can be made now, the reason for each that cannot, and the
 * spreadsheet option (a byte-order mark, so Excel reads names in any script) as a control rather than a URL edit.
 */
export function ExportLinks({ exports }: { exports: ExportLink[] }) {
  const [bom, setBom] = useState(false);
  const available = exports.filter((e) => e.unavailable === null);
  const unavailable = exports.filter((e) => e.unavailable !== null);
  return (
    <div className="flex flex-col gap-3 text-sm">
      <ul className="flex flex-wrap gap-2">
        {available.map((e) => (
          <li key={`${e.kind}?${e.query}`}>
            {e.page ? (
              <a className={buttonClassName({ size: "sm" })} href={e.page}>
                {e.label}
              </a>
            ) : (
              <a
                className={buttonClassName({ size: "sm" })}
                href={withBom(`/api/exports/${e.kind}?${e.query}`, bom && !LEDGER_IMPORTS.has(e.kind))}
              >
                {e.label} (CSV)
              </a>
            )}
          </li>
        ))}
      </ul>
      {available.some((e) => e.kind === "journal-xero") ? (
        <p className="text-xs text-ink-muted">
          Xero does not catch a journal imported twice, and each download holds every journal of the batch: after the
          first import, import only the journals not imported before (each carries its number in its narration).
        </p>
      ) : null}
      {available.some((e) => e.kind === "journal-quickbooks") ? (
        <p className="text-xs text-ink-muted">
          Each QuickBooks download holds every entry of the batch: with “warn me if a journal number is reused” on,
          QuickBooks names the entries imported before; import only the others.
        </p>
      ) : null}
      <SpreadsheetOption
        checked={bom}
        onChange={setBom}
        hint={
          available.some((e) => LEDGER_IMPORTS.has(e.kind))
            ? "Starts each file but the Xero and QuickBooks imports with a byte-order mark so Excel reads names in " +
              "any script."
            : undefined
        }
      />
      {unavailable.length > 0 ? (
        <ul className="flex flex-col gap-1 text-xs text-ink-muted">
          {unavailable.map((e) => (
            <li key={`${e.kind}?${e.query}`}>
              <span className="font-medium text-ink">{e.label}:</span> {e.unavailable}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
