// Several hosts in one --postgres URL, as libpq writes them: `postgres://user@h1:5432,h2:5433/db`.
// Each host becomes a URL of its own (Bun's client takes one host); which of them is the primary
// is found by asking each (primary.ts).

const URL_PARTS = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/;

/** One URL per host of `url`, in the order given; a URL with one host comes back as it is. */
export function hostUrls(url: string): string[] {
  const parts = URL_PARTS.exec(url);
  if (!parts) return [url];
  const [, scheme, userinfo = "", hosts = "", rest = ""] = parts;
  const list = hosts.split(",").filter((h) => h !== "");
  if (list.length <= 1) return [url];
  return list.map((host) => `${scheme}${userinfo}${host}${rest}`);
}

/** The URL as a log may show it: any password replaced by `***`. */
export function withoutPassword(url: string): string {
  const parts = URL_PARTS.exec(url);
  if (!parts) return "postgres (unparsable URL)";
  const [, scheme, userinfo = "", hosts = "", rest = ""] = parts;
  const colon = userinfo.indexOf(":");
  const shown = colon === -1 ? userinfo : `${userinfo.slice(0, colon)}:***@`;
  return `${scheme}${shown}${hosts}${rest}`;
}
