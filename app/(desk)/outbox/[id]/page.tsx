import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { buttonClassName } from "@/app/_components/ui/button-styles";
import { Card } from "@/app/_components/ui/card";
import { KeyValueList } from "@/app/_components/ui/key-value";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getDb } from "@/db";
import { requirePageRole } from "@/lib/auth/session";
import { countOf } from "@/lib/format";
import { readOutboxMessage } from "@/lib/mail/outbox";
import { UUID } from "@/core/uuid";

export const metadata: Metadata = { title: "Email" };

type Props = { params: Promise<{ id: string }> };

export default async function OutboxMessagePage({ params }: Props) {
  await requirePageRole("admin");
  const { id } = await params;
  if (!UUID.test(id)) notFound();
  const message = await readOutboxMessage(getDb(), id);
  if (!message) notFound();
  const subject = message.headers.find((h) => h.name.toLowerCase() === "subject")?.value ?? "(no subject)";
  return (
    <>
      <PageHeader title={subject} breadcrumbs={[{ label: "Outbox", href: "/outbox" }]} />
      <div className="flex flex-col gap-4">
        <Card title="Headers">
          <KeyValueList items={message.headers.map((h) => ({ label: h.name, value: h.value }))} />
        </Card>
        <Card title="Body">
          <pre className="whitespace-pre-wrap break-words font-sans text-sm text-ink">{message.text}</pre>
        </Card>
        <Card title="Attachments">
          {message.attachments.length === 0 ? (
            <p className="text-ink-muted">None.</p>
          ) : (
            <ul className="flex flex-col gap-2">
              {message.attachments.map((a) => (
                <li key={a.index} className="flex items-center gap-3">
                  <a
                    className={buttonClassName({ size: "sm" })}
                    href={`/api/outbox/${message.id}/attachments/${a.index}`}
                    download
                  >
                    Download {a.filename}
                  </a>
                  <span className="text-xs text-ink-muted">
                    {a.contentType}, {countOf(a.size, "byte")}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
    </>
  );
}
