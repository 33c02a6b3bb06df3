import { AnalysisEntity, analysisEntity, propertyName } from "../../src/sheet";
import { buyAnswer } from "./fixtures";

describe("the entity value of STR.CARD", () => {
  test("its shape is assignable to office-js's Excel.EntityCellValue", () => {
    const entity = analysisEntity(buyAnswer, { formattedNumbers: "double" });
    // Compile-time: the builder's type fits Excel's own definition of an entity.
    const asExcel: Excel.EntityCellValue | undefined = entity as Excel.EntityCellValue | undefined;
    expect(asExcel?.type).toBe("Entity");
    expect(() => AnalysisEntity.parse(entity)).not.toThrow();
  });

  test("property names drop the card's 'Year-one' so formulas read =A2.[Cash flow]", () => {
    expect(propertyName({ label: "Year-one cash flow" })).toBe("Cash flow");
    expect(propertyName({ label: "Cap rate" })).toBe("Cap rate");
  });

  test("the schema refuses a layout naming a missing property, and nested referencedValues", () => {
    const bad = {
      type: "Entity",
      text: "x",
      properties: { A: { type: "String", basicValue: "a" } },
      layouts: { card: { title: { property: "B" }, sections: [] } },
      provider: { description: "d" },
    };
    expect(AnalysisEntity.safeParse(bad).success).toBe(false);
    const nested = { ...bad, layouts: { card: { title: { property: "A" }, sections: [] } }, referencedValues: [] };
    expect(AnalysisEntity.safeParse(nested).success).toBe(false);
  });
});
