import { redirect } from "next/navigation";

export default function DeskHome() {
  redirect("/payouts");
}
