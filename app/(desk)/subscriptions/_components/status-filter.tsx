import { Button } from "@/app/_components/ui/button";
import { Select } from "@/app/_components/forms/select";

/** A status filter as a GET form: choose, then Apply (or Enter); the choice lives in the URL. */
export function StatusFilter({
  action,
  value,
  options,
  label,
}: {
  action: string;
  value: string;
  options: { value: string; label: string }[];
  label: string;
}) {
  return (
    <form method="get" action={action} className="flex items-end gap-2 px-3 py-2.5">
      <div className="flex flex-col gap-1">
        <label htmlFor="status-filter" className="text-xs font-medium text-ink-muted">
          {label}
        </label>
        <Select id="status-filter" name="status" defaultValue={value} className="w-56" options={options} />
      </div>
      <Button type="submit" size="md">
        Apply
      </Button>
    </form>
  );
}
