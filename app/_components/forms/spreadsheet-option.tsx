"use client";

import { type ReactNode, useState } from "react";
import { buttonClassName } from "../ui/button-styles";
import { Checkbox } from "./checkbox";

/** The spreadsheet option of CSV downloads, as a control rather than a URL edit. */
export function SpreadsheetOption({
  checked,
  onChange,
  hint = "Starts each file with a byte-order mark so Excel reads names in any script.",
}: {
  checked: boolean;
  onChange(checked: boolean): void;
  hint?: string;
}) {
  return (
    <Checkbox
      label="For a spreadsheet app"
      hint={hint}
      checked={checked}
      onChange={(event) => onChange(event.currentTarget.checked)}
    />
  );
}

/** `href` asking for a byte-order mark when `bom` is set (`bom=1`, which every CSV download reads). */
export function withBom(href: string, bom: boolean): string {
  if (!bom) return href;
  return `${href}${href.includes("?") ? "&" : "?"}bom=1`;
}

/** One CSV download with its spreadsheet option beside it. */
export function CsvDownload({ href, children }: { href: string; children: ReactNode }) {
  const [bom, setBom] = useState(false);
  return (
    <div className="flex flex-wrap items-start gap-x-4 gap-y-2">
      <a className={buttonClassName({ size: "sm" })} href={withBom(href, bom)}>
        {children}
      </a>
      <SpreadsheetOption checked={bom} onChange={setBom} />
    </div>
  );
}
