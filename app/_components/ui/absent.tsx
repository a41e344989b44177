/** An em dash where a value is missing, read out as words ("none", "not prepared") by screen readers. */
export function Absent({ label = "none" }: { label?: string }) {
  return (
    <>
      <span aria-hidden="true">—</span>
      <span className="sr-only">{label}</span>
    </>
  );
}
