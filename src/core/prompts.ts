/**
 * rta's own prompts (prompts/list, prompts/get in src/mcp/resources.ts). Their
 * names are rta's: an upstream's selected prompt offered under one of them is
 * left out (src/upstreams/selections.ts), as a tool whose name rta has is.
 */

export interface PromptDef {
  name: string;
  title: string;
  description: string;
  argument: { name: string; description: string };
  text: (value: string) => string;
}

export const PROMPTS: PromptDef[] = [
  {
    name: "mail_check",
    title: "Check a domain's mail setup",
    description: "Asks for the mail audit of a domain and a summary of its findings.",
    argument: { name: "domain", description: "the mail domain, e.g. example.com" },
    text: (domain) =>
      `Check the mail setup of ${domain}. Call audit_mail with domain "${domain}" (and the DKIM selectors, if you know them). ` +
      "Then summarise the findings, most severe first, each with its fix. If a tool is refused for want of a grant, say which command the person should run.",
  },
  {
    name: "site_check",
    title: "Check a web site",
    description: "Asks for a site's certificate, its web audit and its HTTP headers, and a summary of findings.",
    argument: { name: "host", description: "the site's host name, e.g. example.com" },
    text: (host) =>
      `Check the web site ${host}. Call cert_expiry with host "${host}", audit_web with host "${host}", and http_head with url "https://${host}/". ` +
      "Then summarise the findings, most severe first, each with its fix. If a tool is refused for want of a grant, say which command the person should run.",
  },
];

/** The names rta's own prompts have. */
export const OWN_PROMPT_NAMES: ReadonlySet<string> = new Set(PROMPTS.map((p) => p.name));
