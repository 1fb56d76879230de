import yazl from "yazl";

const namespaces = [
  'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"',
  'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"',
  'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"',
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"',
  'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"',
].join(" ");
const relationshipType = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/** A DOCX built for a test: the XML of its body, and relationships its body refers to. */
export interface DocxFixture {
  /** the children of `<w:body>`, built with the helpers below */
  body: string;
  /** `<Relationship>` elements added to word/_rels/document.xml.rels */
  relationships?: string;
}

export function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** A paragraph: of a style (`Heading1`), in a list (1 bullets, 2 numbers), bold. */
export function docxParagraph(text: string, options: { style?: string; list?: 1 | 2; bold?: boolean } = {}): string {
  const style = options.style ? `<w:pStyle w:val="${options.style}"/>` : "";
  const list = options.list ? `<w:numPr><w:ilvl w:val="0"/><w:numId w:val="${options.list}"/></w:numPr>` : "";
  const bold = options.bold ? "<w:rPr><w:b/></w:rPr>" : "";
  return `<w:p><w:pPr>${style}${list}</w:pPr><w:r>${bold}<w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`;
}

/** A table; its first row is its header. */
export function docxTable(rows: string[][]): string {
  const cells = (row: string[]): string => row.map((cell) => `<w:tc>${docxParagraph(cell)}</w:tc>`).join("");
  const [header = [], ...rest] = rows;
  const headerRow = `<w:tr><w:trPr><w:tblHeader/></w:trPr>${cells(header)}</w:tr>`;
  return `<w:tbl>${headerRow}${rest.map((row) => `<w:tr>${cells(row)}</w:tr>`).join("")}</w:tbl>`;
}

/** An image linked (not embedded) by relationship `id`, with alt text. */
export function docxLinkedImage(id: string, alt: string): string {
  return (
    `<w:p><w:r><w:drawing><wp:inline><wp:docPr id="1" name="Picture" descr="${escapeXml(alt)}"/>` +
    `<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic>` +
    `<pic:blipFill><a:blip r:link="${id}"/></pic:blipFill></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`
  );
}

/** A relationship to an external image (`TargetMode="External"`). */
export function externalImageRelationship(id: string, target: string): string {
  return `<Relationship Id="${id}" Type="${relationshipType}/image" Target="${escapeXml(target)}" TargetMode="External"/>`;
}

/** The DOCX's bytes: a zip with the parts Word writes (content types, relationships, styles, numbering). */
export async function buildDocx(fixture: DocxFixture): Promise<Uint8Array> {
  const parts: Record<string, string> = {
    "[Content_Types].xml":
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Default Extension="png" ContentType="image/png"/>' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    "_rels/.rels":
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      `<Relationship Id="rId1" Type="${relationshipType}/officeDocument" Target="word/document.xml"/></Relationships>`,
    "word/document.xml": `<?xml version="1.0" encoding="UTF-8"?><w:document ${namespaces}><w:body>${fixture.body}</w:body></w:document>`,
    "word/_rels/document.xml.rels":
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      `<Relationship Id="rIdStyles" Type="${relationshipType}/styles" Target="styles.xml"/>` +
      `<Relationship Id="rIdNumbering" Type="${relationshipType}/numbering" Target="numbering.xml"/>` +
      `${fixture.relationships ?? ""}</Relationships>`,
    "word/styles.xml":
      `<?xml version="1.0" encoding="UTF-8"?><w:styles ${namespaces}>` +
      '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>' +
      '<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style></w:styles>',
    "word/numbering.xml":
      `<?xml version="1.0" encoding="UTF-8"?><w:numbering ${namespaces}>` +
      '<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>' +
      '<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum>' +
      '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num></w:numbering>',
  };
  const zip = new yazl.ZipFile();
  for (const [path, xml] of Object.entries(parts)) zip.addBuffer(Buffer.from(xml, "utf8"), path);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}
