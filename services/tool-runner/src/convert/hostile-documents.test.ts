import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversionLimits } from "./conversion.js";
import { convertDocument } from "./convert-document.js";
import { buildDocx, docxLinkedImage, docxParagraph, externalImageRelationship } from "../testing/docx-fixture.js";
import { buildPdf, firstExtraObject, pdfStream, pdfString } from "../testing/pdf-fixture.js";
import { startRequestRecorder, type RequestRecorder } from "../testing/request-recorder.js";

const limits: ConversionLimits = { timeoutMs: 30_000, maxInputBytes: 4 * 1024 * 1024, maxOutputBytes: 1024 * 1024, heapMb: 256 };

let lure: RequestRecorder;
beforeAll(async () => {
  lure = await startRequestRecorder();
});
afterAll(() => lure.close());

/** The requests the lure got: a request a conversion started would have arrived before its worker was gone. */
function requestsSoFar(): string[] {
  return [...lure.requests];
}

function markdownOf(conversion: Awaited<ReturnType<typeof convertDocument>>): string {
  expect(conversion.kind).toBe("markdown");
  return conversion.kind === "markdown" ? conversion.markdown : "";
}

describe("a hostile PDF", () => {
  it("runs none of its JavaScript, URI, Launch or GoToR actions and loads no remote font or image, and its text comes out", async () => {
    const marker = join(tmpdir(), `convert-launch-${randomUUID()}`);
    const url = (path: string): string => pdfString(`${lure.origin}/pdf/${path}`);
    const first = firstExtraObject(1);
    // the numbers of the objects below, in their order
    const javaScript = first + 0;
    const uri = first + 1;
    const launch = first + 2;
    const goToR = first + 3;
    const names = first + 4;
    const remoteFont = first + 5;
    const descriptor = first + 6;
    const fontFile = first + 7;
    const image = first + 8;
    const form = first + 9;
    const script = `app.launchURL("${lure.origin}/pdf/launch-url", true); this.submitForm("${lure.origin}/pdf/submit"); this.getURL("${lure.origin}/pdf/get-url");`;
    const link = (action: number, x: number): string => `<< /Type /Annot /Subtype /Link /Rect [${x} 100 ${x + 50} 150] /Border [0 0 0] /A ${action} 0 R >>`;
    const pdf = buildPdf({
      pages: [["Visible text survives hostile actions"]],
      catalog: `/OpenAction ${javaScript} 0 R /Names << /JavaScript ${names} 0 R >> /AA << /WC ${javaScript} 0 R /WP ${javaScript} 0 R >> /URI << /Base ${url("base/")} >>`,
      page: `/AA << /O ${javaScript} 0 R >> /Annots [${link(uri, 72)} ${link(launch, 150)} ${link(goToR, 230)}]`,
      resources: `/Font << /F1 3 0 R /F2 ${remoteFont} 0 R >> /XObject << /Im1 ${image} 0 R /Fm1 ${form} 0 R >>`,
      content: "q 10 0 0 10 72 500 cm /Im1 Do Q /Fm1 Do",
      objects: [
        `<< /Type /Action /S /JavaScript /JS ${pdfString(script)} >>`,
        `<< /Type /Action /S /URI /URI ${url("uri")} >>`,
        `<< /Type /Action /S /Launch /F << /Type /Filespec /F (/usr/bin/touch) >> /Win << /F (cmd.exe) /P ${pdfString(`/c touch ${marker}`)} >> /Unix ${pdfString(`touch ${marker}`)} /NewWindow true >>`,
        `<< /Type /Action /S /GoToR /F << /Type /Filespec /FS /URL /F ${url("remote.pdf")} >> /D [0 /Fit] >>`,
        `<< /Names [(auto) ${javaScript} 0 R] >>`,
        `<< /Type /Font /Subtype /TrueType /BaseFont /RemoteSans /FirstChar 32 /LastChar 126 /FontDescriptor ${descriptor} 0 R >>`,
        `<< /Type /FontDescriptor /FontName /RemoteSans /Flags 32 /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 900 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 ${fontFile} 0 R >>`,
        pdfStream(`/F << /Type /Filespec /FS /URL /F ${url("font.ttf")} >>`, ""),
        pdfStream(`/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 /F << /FS /URL /F ${url("image.png")} >>`, ""),
        pdfStream(`/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F2 ${remoteFont} 0 R >> >>`, "BT /F2 12 Tf 72 400 Td (Text in a remote font) Tj ET"),
      ],
    });

    const markdown = markdownOf(await convertDocument("hostile.pdf", pdf, limits));

    expect(markdown).toContain("Visible text survives hostile actions");
    expect(markdown).toContain("Text in a remote font");
    expect(markdown).not.toContain("launchURL");
    expect(requestsSoFar()).toEqual([]);
    expect(existsSync(marker)).toBe(false);
    rmSync(marker, { force: true });
  });
});

describe("a hostile DOCX", () => {
  it("reads no external image (file:///etc/passwd, a local HTTP server): each becomes its alt text", async () => {
    const docx = await buildDocx({
      body: [docxParagraph("Report body"), docxLinkedImage("rIdPasswd", "Passwd picture"), docxLinkedImage("rIdRemote", "Remote picture")].join(""),
      relationships: externalImageRelationship("rIdPasswd", "file:///etc/passwd") + externalImageRelationship("rIdRemote", `${lure.origin}/docx/x`),
    });

    const markdown = markdownOf(await convertDocument("hostile.docx", docx, limits));

    expect(markdown).toContain("Report body");
    expect(markdown).toContain("[image: Passwd picture]");
    expect(markdown).toContain("[image: Remote picture]");
    const firstPasswdLine = readFileSync("/etc/passwd", "utf8").split("\n", 1)[0] ?? "";
    expect(firstPasswdLine).not.toBe("");
    expect(markdown).not.toContain(firstPasswdLine);
    expect(markdown).not.toContain("root:");
    expect(markdown).not.toContain("data:");
    expect(markdown).not.toContain("/etc/passwd");
    expect(requestsSoFar()).toEqual([]);
  });
});

describe("a hostile HTML page", () => {
  it("loads nothing, runs no script, and leaves no script, frame or form in the Markdown", async () => {
    const origin = lure.origin;
    const html = `<!doctype html><html><head>
      <meta http-equiv="refresh" content="0; url=${origin}/html/refresh">
      <link rel="stylesheet" href="${origin}/html/css"><base href="${origin}/html/base/">
      <style>@import url("${origin}/html/import"); body { background: url(${origin}/html/bg) }</style>
      <script>fetch("${origin}/html/script"); document.write("SCRIPT-OUTPUT")</script>
      <script src="${origin}/html/script.js"></script></head>
      <body onload="fetch('${origin}/html/onload')">
      <h1>Safe heading</h1>
      <p>Body text <img src="${origin}/html/img" alt="Company logo"> <img src="x" onerror="fetch('${origin}/html/onerror')"></p>
      <iframe src="${origin}/html/frame">IFRAME-FALLBACK</iframe>
      <object data="${origin}/html/object">OBJECT-FALLBACK</object><embed src="${origin}/html/embed">
      <video src="${origin}/html/video" poster="${origin}/html/poster">VIDEO-FALLBACK</video>
      <form action="${origin}/html/form"><input name="token" value="FORM-SECRET"><button>FORM-BUTTON</button></form>
      <noscript>NOSCRIPT-TEXT</noscript>
      <p><a href="javascript:fetch('${origin}/html/js-link')">scripted link</a> and <a href="https://example.com/page">a real link</a>
      and <a href="data:text/html,DATA-LINK">data link</a></p>
      <svg><script>SVG-SCRIPT</script><image href="${origin}/html/svg-image"/></svg>
      </body></html>`;

    const markdown = markdownOf(await convertDocument("hostile.html", new TextEncoder().encode(html), limits));

    expect(markdown).toContain("# Safe heading");
    expect(markdown).toContain("Body text [image: Company logo]");
    expect(markdown).toContain("scripted link and [a real link](https://example.com/page)");
    expect(markdown).toContain("data link");
    for (const hidden of ["fetch", "SCRIPT-OUTPUT", "IFRAME-FALLBACK", "OBJECT-FALLBACK", "VIDEO-FALLBACK", "FORM-SECRET", "FORM-BUTTON", "NOSCRIPT-TEXT", "SVG-SCRIPT", "javascript:", "data:", origin]) {
      expect(markdown).not.toContain(hidden);
    }
    expect(requestsSoFar()).toEqual([]);
  });
});
