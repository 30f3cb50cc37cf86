//! The pictures of `terminalsAndIcons/`: the FMU's icon (its name in a
//! box) and one icon per terminal kind (a hydraulic port is a filled dot as
//! in ISO 1219, a flange a square), each as PNG (which FMI 3 requires) and
//! SVG. The PNGs are drawn on a small RGBA canvas and written by a minimal
//! encoder (stored deflate blocks; the FMU's zip compresses them).

use model_description::ParsedTerminal;

/// An RGBA colour.
type Rgba = [u8; 4];

const FRAME: Rgba = [20, 50, 110, 255];
const FILL: Rgba = [235, 242, 252, 255];
const TEXT: Rgba = [20, 30, 60, 255];
const PORT: Rgba = [0, 90, 200, 255];
const FLANGE: Rgba = [60, 60, 60, 255];

/// A canvas of RGBA pixels, row 0 at the top.
struct Canvas {
    width: usize,
    height: usize,
    pixels: Vec<u8>,
}

impl Canvas {
    fn new(width: usize, height: usize) -> Self {
        Canvas {
            width,
            height,
            pixels: vec![0; width * height * 4],
        }
    }

    fn set(&mut self, x: i64, y: i64, c: Rgba) {
        if x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height {
            let i = (y as usize * self.width + x as usize) * 4;
            self.pixels[i..i + 4].copy_from_slice(&c);
        }
    }

    fn fill_rect(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: Rgba) {
        for y in y0..y1 {
            for x in x0..x1 {
                self.set(x, y, c);
            }
        }
    }

    /// A frame of `width` pixels inside the rectangle.
    fn frame(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, width: i64, c: Rgba) {
        self.fill_rect(x0, y0, x1, y0 + width, c);
        self.fill_rect(x0, y1 - width, x1, y1, c);
        self.fill_rect(x0, y0, x0 + width, y1, c);
        self.fill_rect(x1 - width, y0, x1, y1, c);
    }

    fn disc(&mut self, cx: f64, cy: f64, r: f64, c: Rgba) {
        let (x0, x1) = ((cx - r).floor() as i64, (cx + r).ceil() as i64);
        let (y0, y1) = ((cy - r).floor() as i64, (cy + r).ceil() as i64);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let (dx, dy) = (x as f64 + 0.5 - cx, y as f64 + 0.5 - cy);
                if dx * dx + dy * dy <= r * r {
                    self.set(x, y, c);
                }
            }
        }
    }

    /// Text in the 5x7 font, `scale` pixels per font pixel, centred on
    /// (`cx`, `cy`).
    fn text(&mut self, text: &str, cx: i64, cy: i64, scale: i64, c: Rgba) {
        let n = text.chars().count() as i64;
        let width = (6 * n - 1) * scale;
        let (x0, y0) = (cx - width / 2, cy - 7 * scale / 2);
        for (k, ch) in text.chars().enumerate() {
            let glyph = glyph(ch);
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..5 {
                    if bits & (0b10000 >> col) != 0 {
                        let x = x0 + (k as i64 * 6 + col) * scale;
                        let y = y0 + row as i64 * scale;
                        self.fill_rect(x, y, x + scale, y + scale, c);
                    }
                }
            }
        }
    }

    fn png(&self) -> Vec<u8> {
        png(self.width, self.height, &self.pixels)
    }
}

/// The 5x7 glyph of an upper-case letter, a digit or '-' (others blank;
/// lower case is drawn as upper case).
fn glyph(c: char) -> [u8; 7] {
    const LETTERS: [[u8; 7]; 26] = [
        [14, 17, 17, 31, 17, 17, 17], // A
        [30, 17, 17, 30, 17, 17, 30], // B
        [14, 17, 16, 16, 16, 17, 14], // C
        [30, 17, 17, 17, 17, 17, 30], // D
        [31, 16, 16, 30, 16, 16, 31], // E
        [31, 16, 16, 30, 16, 16, 16], // F
        [14, 17, 16, 23, 17, 17, 15], // G
        [17, 17, 17, 31, 17, 17, 17], // H
        [14, 4, 4, 4, 4, 4, 14],      // I
        [7, 2, 2, 2, 2, 18, 12],      // J
        [17, 18, 20, 24, 20, 18, 17], // K
        [16, 16, 16, 16, 16, 16, 31], // L
        [17, 27, 21, 21, 17, 17, 17], // M
        [17, 17, 25, 21, 19, 17, 17], // N
        [14, 17, 17, 17, 17, 17, 14], // O
        [30, 17, 17, 30, 16, 16, 16], // P
        [14, 17, 17, 17, 21, 18, 13], // Q
        [30, 17, 17, 30, 20, 18, 17], // R
        [15, 16, 16, 14, 1, 1, 30],   // S
        [31, 4, 4, 4, 4, 4, 4],       // T
        [17, 17, 17, 17, 17, 17, 14], // U
        [17, 17, 17, 17, 17, 10, 4],  // V
        [17, 17, 17, 21, 21, 21, 10], // W
        [17, 17, 10, 4, 10, 17, 17],  // X
        [17, 17, 10, 4, 4, 4, 4],     // Y
        [31, 1, 2, 4, 8, 16, 31],     // Z
    ];
    const DIGITS: [[u8; 7]; 10] = [
        [14, 17, 19, 21, 25, 17, 14], // 0
        [4, 12, 4, 4, 4, 4, 14],      // 1
        [14, 17, 1, 2, 4, 8, 31],     // 2
        [31, 2, 4, 2, 1, 17, 14],     // 3
        [2, 6, 10, 18, 31, 2, 2],     // 4
        [31, 16, 30, 1, 1, 17, 14],   // 5
        [6, 8, 16, 30, 17, 17, 14],   // 6
        [31, 1, 2, 4, 8, 8, 8],       // 7
        [14, 17, 17, 14, 17, 17, 14], // 8
        [14, 17, 17, 15, 1, 2, 12],   // 9
    ];
    match c.to_ascii_uppercase() {
        u @ 'A'..='Z' => LETTERS[(u as u8 - b'A') as usize],
        d @ '0'..='9' => DIGITS[(d as u8 - b'0') as usize],
        '-' => [0, 0, 0, 31, 0, 0, 0],
        _ => [0; 7],
    }
}

/// A model identifier split at its capitals into lines of at most
/// `width` characters ("FourBarMechanism" -> "FourBar", "Mechanism").
fn lines(name: &str, width: usize) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for c in name.chars() {
        match words.last_mut() {
            Some(w) if !c.is_ascii_uppercase() => w.push(c),
            _ => words.push(c.to_string()),
        }
    }
    let mut out: Vec<String> = Vec::new();
    for w in words {
        match out.last_mut() {
            Some(line) if line.len() + w.len() <= width => line.push_str(&w),
            _ => out.push(w),
        }
    }
    out
}

/// The FMU's icon, 200 x 200 px for the coordinate system -100..100: a
/// framed box with the model's name. Returns (PNG, SVG).
pub fn fmu_icon(model: &str) -> (Vec<u8>, String) {
    let mut c = Canvas::new(200, 200);
    c.fill_rect(4, 4, 196, 196, FILL);
    c.frame(4, 4, 196, 196, 6, FRAME);
    let text = lines(model, 12);
    let n = text.len() as i64;
    for (i, line) in text.iter().enumerate() {
        let y = 100 + (2 * i as i64 - (n - 1)) * 12;
        c.text(&line.to_ascii_uppercase(), 100, y, 2, TEXT);
    }
    let mut svg = String::from(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"200\" viewBox=\"0 0 200 200\">\n\
         <rect x=\"7\" y=\"7\" width=\"186\" height=\"186\" fill=\"#ebf2fc\" stroke=\"#14326e\" stroke-width=\"6\"/>\n",
    );
    for (i, line) in text.iter().enumerate() {
        let y = 100 + (2 * i as i64 - (n - 1)) * 14 + 7;
        svg.push_str(&format!(
            "<text x=\"100\" y=\"{y}\" font-family=\"sans-serif\" font-size=\"24\" \
             text-anchor=\"middle\" fill=\"#141e3c\">{line}</text>\n"
        ));
    }
    svg.push_str("</svg>\n");
    (c.png(), svg)
}

/// The icon of a terminal kind by its base name, 80 x 80 px for a 20 x 20
/// terminal. Returns (PNG, SVG), or `None` for a base name this tool does
/// not draw.
pub fn terminal_icon(base: &str) -> Option<(Vec<u8>, String)> {
    let mut c = Canvas::new(80, 80);
    let svg = match base {
        "hydraulic_port" => {
            c.disc(40.0, 40.0, 30.0, PORT);
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"80\" height=\"80\" viewBox=\"0 0 80 80\">\n\
             <circle cx=\"40\" cy=\"40\" r=\"30\" fill=\"#005ac8\"/>\n</svg>\n"
        }
        "flange" => {
            c.fill_rect(8, 8, 72, 72, FLANGE);
            c.fill_rect(24, 24, 56, 56, [255, 255, 255, 255]);
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"80\" height=\"80\" viewBox=\"0 0 80 80\">\n\
             <rect x=\"8\" y=\"8\" width=\"64\" height=\"64\" fill=\"#3c3c3c\"/>\n\
             <rect x=\"24\" y=\"24\" width=\"32\" height=\"32\" fill=\"#ffffff\"/>\n</svg>\n"
        }
        _ => return None,
    };
    Some((c.png(), svg.to_owned()))
}

/// Every file of `terminalsAndIcons/` for a model: the FMU icon and the
/// icons its terminals name. Fails for a terminal icon this tool cannot draw.
pub fn files(model: &str, terminals: &[ParsedTerminal]) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let (png, svg) = fmu_icon(model);
    let mut files = vec![
        ("terminalsAndIcons/icon.png".to_owned(), png),
        ("terminalsAndIcons/icon.svg".to_owned(), svg.into_bytes()),
    ];
    let mut bases: Vec<&str> = terminals
        .iter()
        .filter_map(|t| t.graphics.as_ref().map(|(_, b)| b.as_str()))
        .collect();
    bases.sort_unstable();
    bases.dedup();
    for base in bases {
        let (png, svg) = terminal_icon(base).ok_or_else(|| {
            anyhow::anyhow!("no icon is drawn for terminal icon base name '{base}'")
        })?;
        files.push((format!("terminalsAndIcons/{base}.png"), png));
        files.push((format!("terminalsAndIcons/{base}.svg"), svg.into_bytes()));
    }
    Ok(files)
}

/// A PNG of 8-bit RGBA pixels (rows top to bottom).
fn png(width: usize, height: usize, rgba: &[u8]) -> Vec<u8> {
    let mut raw = Vec::with_capacity(height * (width * 4 + 1));
    for row in rgba.chunks(width * 4) {
        raw.push(0); // filter: none
        raw.extend_from_slice(row);
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&(width as u32).to_be_bytes());
    ihdr.extend_from_slice(&(height as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]); // 8 bit, RGBA, deflate, no filter, no interlace
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &zlib_stored(&raw));
    chunk(&mut out, b"IEND", &[]);
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// A zlib stream of stored (uncompressed) deflate blocks.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = if data.is_empty() {
        vec![&[]]
    } else {
        data.chunks(65_535).collect()
    };
    for (i, block) in blocks.iter().enumerate() {
        out.push(u8::from(i + 1 == blocks.len()));
        let len = block.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    out.extend_from_slice(&((b << 16) | a).to_be_bytes());
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_and_adler_match_known_values() {
        // CRC-32 of "123456789" is CBF43926; Adler-32 of "Wikipedia" is
        // 11E60398.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        let z = zlib_stored(b"Wikipedia");
        assert_eq!(&z[z.len() - 4..], &0x11E6_0398u32.to_be_bytes());
        assert_eq!(&z[..3], &[0x78, 0x01, 1]);
    }

    #[test]
    fn names_split_at_capitals_into_short_lines() {
        assert_eq!(lines("FourBarMechanism", 12), ["FourBar", "Mechanism"]);
        assert_eq!(lines("HoseG", 12), ["HoseG"]);
        assert_eq!(lines("ValveCylinder", 12), ["Valve", "Cylinder"]);
    }

    #[test]
    fn the_icon_is_a_png_of_the_coordinate_system_with_ink_in_it() {
        let (png, svg) = fmu_icon("OrificeChain");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 200);
        assert!(svg.contains(">OrificeChain</text>"), "{svg}");
        let (_, two) = fmu_icon("ValveCylinder");
        assert!(
            two.contains(">Valve</text>") && two.contains(">Cylinder</text>"),
            "{two}"
        );
        // The text is drawn: some pixels carry the text colour.
        let mut c = Canvas::new(200, 200);
        c.text("ORIFICE", 100, 100, 2, TEXT);
        assert!(c.pixels.chunks(4).filter(|p| *p == TEXT).count() > 100);
    }

    #[test]
    fn unknown_terminal_icons_are_refused() {
        assert!(terminal_icon("hydraulic_port").is_some());
        assert!(terminal_icon("flange").is_some());
        assert!(terminal_icon("teapot").is_none());
    }
}
