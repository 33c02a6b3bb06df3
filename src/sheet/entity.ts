import { z } from "zod";
import { FieldInfo, RelayAnswer, Strategy, fieldsOf } from "../contract";
import { analysisOf, strategyOf, warningTexts } from "./answer";
import { HostSupport, toCellValue } from "./cell-values";
import { MODE_TEXT } from "./card";
import { fieldCell } from "./field-values";

/*
 * STR.CARD: the analysis as one Excel entity value (a data type), so a single cell holds the whole
 * card and formulas read it by name: `=A2.[Cash flow]`, `=A2.[Cap rate]`. Its card shows sections
 * (Revenue, Financials, Comparables, Warnings), the first comparable's photo and the report link.
 *
 * The shape follows Excel's documented EntityCellValue (a test checks it against office-js's types
 * and against the schema below): every property is itself a cell value; sections list property
 * names; no nested entities, so no `referencedValues` anywhere (Excel allows them at the root only).
 */

const StringValue = z.strictObject({ type: z.literal("String"), basicValue: z.string() });
const DoubleValue = z.strictObject({
  type: z.literal("Double"),
  basicValue: z.number(),
  numberFormat: z.string().optional(),
});
const FormattedNumberValue = z.strictObject({
  type: z.literal("FormattedNumber"),
  basicValue: z.number(),
  numberFormat: z.string(),
});
const WebImageValue = z.strictObject({
  type: z.literal("WebImage"),
  address: z.string().url(),
  altText: z.string().optional(),
});
const ArrayValue = z.strictObject({ type: z.literal("Array"), elements: z.array(z.array(StringValue)) });
export const EntityProperty = z.union([StringValue, DoubleValue, FormattedNumberValue, WebImageValue, ArrayValue]);
export type EntityProperty = z.infer<typeof EntityProperty>;

const Section = z.strictObject({
  layout: z.literal("List"),
  title: z.string(),
  properties: z.array(z.string()).min(1),
  collapsible: z.boolean().optional(),
  collapsed: z.boolean().optional(),
});

export const AnalysisEntity = z
  .strictObject({
    type: z.literal("Entity"),
    text: z.string().min(1),
    properties: z.record(z.string(), EntityProperty),
    layouts: z.strictObject({
      card: z.strictObject({
        title: z.strictObject({ property: z.string() }),
        mainImage: z.strictObject({ property: z.string() }).optional(),
        sections: z.array(Section),
      }),
    }),
    provider: z.strictObject({ description: z.string() }),
  })
  .superRefine((entity, ctx) => {
    // Every name a card layout refers to must be a property.
    const names = new Set(Object.keys(entity.properties));
    const refs = [
      entity.layouts.card.title.property,
      entity.layouts.card.mainImage?.property,
      ...entity.layouts.card.sections.flatMap((s) => s.properties),
    ];
    for (const ref of refs)
      if (ref !== undefined && !names.has(ref))
        ctx.addIssue({ code: "custom", message: `layout refers to a missing property ${ref}` });
  });
export type AnalysisEntity = z.infer<typeof AnalysisEntity>;

/**
 * A field's name as an entity property: its label, with the "Year-one " that the card's label
 * needs dropped, since the card's Financials section already says it is the first year —
 * "Cash flow", "Operating income" — so formulas read `=A2.[Cash flow]`.
 */
export function propertyName(field: Pick<FieldInfo, "label">): string {
  return field.label.replace(/^Year-one (\w)/, (_m, c: string) => c.toUpperCase());
}

const SECTION_OF: Record<FieldInfo["group"], "Revenue" | "Financials" | "Property" | "Report"> = {
  Revenue: "Revenue",
  "Nightly rate": "Revenue",
  Occupancy: "Revenue",
  "Cash flow": "Financials",
  "Investor metrics": "Financials",
  Financing: "Financials",
  Property: "Property",
  Report: "Report",
};

/**
 * The service's `quartiles` as sent are the same percentiles the Revenue section lists (the normaliser
 * reads them from there when `revenue` is missing): asked for by name in `fields`, not repeated here.
 */
function notQuartile(field: FieldInfo): boolean {
  return !field.path.startsWith("quartiles.");
}

/** The entity for an answer, or undefined when it holds no analysis (then the caller shows the card spill). */
export function analysisEntity(
  answer: RelayAnswer,
  support: HostSupport,
  options: { strategy?: Strategy } = {},
): AnalysisEntity | undefined {
  const analysis = analysisOf(answer);
  if (!analysis) return undefined;
  const strategy = strategyOf(answer, options.strategy);
  const properties: Record<string, EntityProperty> = {};
  const sections: Record<string, string[]> = {
    Revenue: [],
    Financials: [],
    Property: [],
    Report: [],
    Comparables: [],
    Warnings: [],
  };

  for (const field of strategy ? fieldsOf(strategy).filter(notQuartile) : []) {
    const value = toCellValue(fieldCell(analysis, field), support);
    if (value === "") continue;
    const name = propertyName(field);
    properties[name] =
      typeof value === "object"
        ? value
        : typeof value === "number"
          ? { type: "Double", basicValue: value }
          : { type: "String", basicValue: String(value) };
    sections[SECTION_OF[field.group]]?.push(name);
  }

  const address = typeof analysis.fullAddress === "string" && analysis.fullAddress ? analysis.fullAddress : "Analysis";
  properties.Address ??= { type: "String", basicValue: address };
  properties.Mode = { type: "String", basicValue: answer.relay.sandbox ? MODE_TEXT.sandbox : MODE_TEXT.live };

  const comps = analysis.comparables;
  if (comps.length > 0) {
    properties.Comparables = { type: "Double", basicValue: comps.length, numberFormat: "0" };
    const revenues = comps
      .map((c) => c.annualRevenueUSD)
      .filter((v): v is number => typeof v === "number")
      .sort((a, b) => a - b);
    if (revenues.length > 0)
      properties["Comparables' median revenue"] = {
        type: "Double",
        basicValue: revenues[Math.floor((revenues.length - 1) / 2)] as number,
        numberFormat: "$#,##0",
      };
    const nearest = comps.map((c) => c.distanceMiles).filter((v): v is number => typeof v === "number");
    if (nearest.length > 0)
      properties["Nearest comparable"] = { type: "Double", basicValue: Math.min(...nearest), numberFormat: '0.0 "mi"' };
    sections.Comparables = Object.keys(properties).filter(
      (k) => k === "Comparables" || k.startsWith("Comparables'") || k === "Nearest comparable",
    );
  }
  const photo = comps.flatMap((c) => c.photo_urls ?? []).find((u) => /^https?:\/\//.test(u));
  if (photo)
    properties.Photo = { type: "WebImage", address: photo, altText: `Photo of a comparable listing near ${address}` };

  const warnings = warningTexts(answer);
  properties.Warnings =
    warnings.length === 0
      ? { type: "String", basicValue: "None" }
      : { type: "Array", elements: warnings.map((w) => [{ type: "String", basicValue: w }]) };
  // The mode beside the warnings, open: a simulated analysis is never read as a real one.
  sections.Warnings = ["Mode", "Warnings"];

  const order = ["Revenue", "Financials", "Comparables", "Warnings", "Property", "Report"] as const;
  return {
    type: "Entity",
    // The text is what the cell shows: a simulated analysis says so first, where a narrow column keeps it.
    text: `${answer.relay.sandbox ? "SANDBOX: " : ""}${strategy ? `${address} (${strategy})` : address}`,
    properties,
    layouts: {
      card: {
        title: { property: "Address" },
        ...(photo ? { mainImage: { property: "Photo" } } : {}),
        sections: order
          .filter((title) => (sections[title]?.length ?? 0) > 0)
          .map((title) => ({
            layout: "List" as const,
            title,
            properties: sections[title] as string[],
            ...(title === "Property" || title === "Report" ? { collapsible: true, collapsed: true } : {}),
          })),
      },
    },
    provider: {
      description: answer.relay.sandbox ? "STR sandbox: simulated data, not market data" : "STR underwriting service",
    },
  };
}
