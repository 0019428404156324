import { startUi } from "../test/helpers/ui-kit.ts";
const ui = await startUi();
const { page, relay } = ui;
const id = await relay.createSession({ title: "x" });
await relay.say(id, "/usage 100 20 0.01\n/reply fine", 60000);
await ui.open("settings");
await page.getByRole("group", { name: "Provider Scripted" }).waitFor();
await page.waitForTimeout(1500);
console.log(await page.evaluate(() => {
  const out: string[] = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) if (/\bnull\b/.test(n.textContent ?? "")) out.push(n.parentElement!.outerHTML.slice(0, 300) + " <<< " + n.parentElement!.parentElement!.outerHTML.slice(0, 300));
  return out;
}));
await page.locator("#usage").screenshot({ path: "/tmp/usage.png" });
await ui.close();
