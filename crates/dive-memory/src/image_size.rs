//! Image dimensions read from the first bytes of PNG, GIF, JPEG and WebP files (no decoder).

/// Width and height in pixels, when the bytes are a PNG, GIF, JPEG or WebP image whose header
/// says so.
pub(crate) fn dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    png(bytes).or_else(|| gif(bytes)).or_else(|| jpeg(bytes)).or_else(|| webp(bytes))
}

fn be32(b: &[u8]) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(..4)?.try_into().ok()?))
}

fn png(b: &[u8]) -> Option<(u32, u32)> {
    if !b.starts_with(b"\x89PNG\r\n\x1a\n") || b.get(12..16)? != b"IHDR" {
        return None;
    }
    Some((be32(b.get(16..)?)?, be32(b.get(20..)?)?))
}

fn gif(b: &[u8]) -> Option<(u32, u32)> {
    if !(b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a")) {
        return None;
    }
    let w = u16::from_le_bytes([*b.get(6)?, *b.get(7)?]);
    let h = u16::from_le_bytes([*b.get(8)?, *b.get(9)?]);
    Some((u32::from(w), u32::from(h)))
}

fn jpeg(b: &[u8]) -> Option<(u32, u32)> {
    if !b.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    let mut i = 2;
    while i + 4 <= b.len() {
        if b[i] != 0xFF {
            i += 1;
            continue;
        }
        let marker = b[i + 1];
        if marker == 0xFF || (0xD0..=0xD9).contains(&marker) || marker == 0x01 {
            i += if marker == 0xFF { 1 } else { 2 };
            continue;
        }
        let len = usize::from(u16::from_be_bytes([b[i + 2], b[i + 3]]));
        // Start-of-frame markers (baseline, progressive, …), not DHT/JPG/DAC.
        if matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
            let h = u16::from_be_bytes([*b.get(i + 5)?, *b.get(i + 6)?]);
            let w = u16::from_be_bytes([*b.get(i + 7)?, *b.get(i + 8)?]);
            return Some((u32::from(w), u32::from(h)));
        }
        i += 2 + len;
    }
    None
}

fn webp(b: &[u8]) -> Option<(u32, u32)> {
    if b.get(..4)? != b"RIFF" || b.get(8..12)? != b"WEBP" {
        return None;
    }
    let le24 = |s: &[u8]| u32::from(s[0]) | (u32::from(s[1]) << 8) | (u32::from(s[2]) << 16);
    match b.get(12..16)? {
        b"VP8X" => {
            let s = b.get(24..30)?;
            Some((le24(&s[..3]) + 1, le24(&s[3..]) + 1))
        }
        b"VP8 " => {
            let s = b.get(26..30)?;
            Some((
                u32::from(u16::from_le_bytes([s[0], s[1]]) & 0x3FFF),
                u32::from(u16::from_le_bytes([s[2], s[3]]) & 0x3FFF),
            ))
        }
        b"VP8L" => {
            let s = b.get(21..25)?;
            let bits = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
            Some(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_header(w: u32, h: u32) -> Vec<u8> {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        b.extend(w.to_be_bytes());
        b.extend(h.to_be_bytes());
        b.extend([8, 6, 0, 0, 0]);
        b
    }

    #[test]
    fn reads_png_gif_jpeg_and_webp_headers() {
        assert_eq!(dimensions(&png_header(1024, 768)), Some((1024, 768)));
        assert_eq!(dimensions(b"GIF89a\x40\x01\xf0\x00rest"), Some((320, 240)));
        // SOI, an APP0 segment of length 16, then SOF0 with height 480 and width 640.
        let mut jpeg = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10];
        jpeg.extend([0u8; 14]);
        jpeg.extend([0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0xE0, 0x02, 0x80, 0x03]);
        assert_eq!(dimensions(&jpeg), Some((640, 480)));
        let mut webp = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0".to_vec();
        webp.extend([0xFF, 0x03, 0x00, 0x57, 0x02, 0x00]); // 1024 x 600
        assert_eq!(dimensions(&webp), Some((1024, 600)));
        assert_eq!(dimensions(b"not an image"), None);
    }
}
