//! A strict reader of flat JSON objects (properties' canonical text and
//! any flat object of numbers, texts and true/false), exact for numbers:
//! they are read as decimals, never through a float.

use super::{PropValue, PropsError};

fn err(what: impl Into<String>) -> PropsError {
    PropsError::NotAMap { what: what.into() }
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
    text: &'a str,
}

impl Cursor<'_> {
    fn ws(&mut self) {
        while self
            .b
            .get(self.at)
            .is_some_and(|c| matches!(c, b' ' | b'\n' | b'\r' | b'\t'))
        {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Result<(), PropsError> {
        self.ws();
        if self.b.get(self.at) == Some(&c) {
            self.at += 1;
            Ok(())
        } else {
            Err(err(format!(
                "malformed text (expected `{}` at byte {})",
                c as char, self.at
            )))
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.at).copied()
    }

    fn hex4(&mut self) -> Result<u32, PropsError> {
        let h = self
            .text
            .get(self.at..self.at + 4)
            .ok_or_else(|| err("malformed text (a cut \\u escape)"))?;
        let v = u32::from_str_radix(h, 16).map_err(|_| err("malformed text (a bad \\u escape)"))?;
        self.at += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String, PropsError> {
        self.eat(b'"')?;
        let mut out = String::new();
        loop {
            let start = self.at;
            while self
                .b
                .get(self.at)
                .is_some_and(|&c| c != b'"' && c != b'\\' && c >= 0x20)
            {
                self.at += 1;
            }
            // the run stops at an ASCII byte, so it ends on a boundary
            out.push_str(self.text.get(start..self.at).unwrap_or(""));
            match self.b.get(self.at) {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let c = *self
                        .b
                        .get(self.at)
                        .ok_or_else(|| err("malformed text (a cut escape)"))?;
                    self.at += 1;
                    match c {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                if self.b.get(self.at..self.at + 2) != Some(b"\\u") {
                                    return Err(err("malformed text (a lone surrogate)"));
                                }
                                self.at += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(err("malformed text (a lone surrogate)"));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else {
                                hi
                            };
                            out.push(
                                char::from_u32(code)
                                    .ok_or_else(|| err("malformed text (a lone surrogate)"))?,
                            );
                        }
                        _ => return Err(err("malformed text (an unknown escape)")),
                    }
                }
                _ => return Err(err("malformed text (an unclosed string)")),
            }
        }
    }

    fn value(&mut self, key: &str) -> Result<PropValue, PropsError> {
        match self.peek() {
            Some(b'"') => Ok(PropValue::Text(self.string()?.into_boxed_str())),
            Some(b't') if self.b[self.at..].starts_with(b"true") => {
                self.at += 4;
                Ok(PropValue::Bool(true))
            }
            Some(b'f') if self.b[self.at..].starts_with(b"false") => {
                self.at += 5;
                Ok(PropValue::Bool(false))
            }
            Some(b'-' | b'0'..=b'9') => {
                let start = self.at;
                while self
                    .b
                    .get(self.at)
                    .is_some_and(|c| matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                {
                    self.at += 1;
                }
                let t = self.text.get(start..self.at).unwrap_or("");
                t.parse()
                    .map(PropValue::Number)
                    .map_err(|problem| PropsError::Number {
                        key: key.to_string(),
                        problem,
                    })
            }
            Some(b'n') => Err(PropsError::NotAValue {
                key: key.to_string(),
                what: "null",
            }),
            Some(b'[') => Err(PropsError::NotAValue {
                key: key.to_string(),
                what: "a list",
            }),
            Some(b'{') => Err(PropsError::NotAValue {
                key: key.to_string(),
                what: "an object",
            }),
            _ => Err(err(format!(
                "malformed text (no value at byte {})",
                self.at
            ))),
        }
    }
}

/// The entries of a flat JSON object, in the text's order.
pub(super) fn parse(text: &str) -> Result<Vec<(Box<str>, PropValue)>, PropsError> {
    let mut c = Cursor {
        b: text.as_bytes(),
        at: 0,
        text,
    };
    let mut out = Vec::new();
    c.eat(b'{')?;
    if c.peek() == Some(b'}') {
        c.at += 1;
    } else {
        loop {
            let key = c.string()?;
            c.eat(b':')?;
            let value = c.value(&key)?;
            out.push((key.into_boxed_str(), value));
            if out.len() > super::MAX_PROPS {
                return Err(PropsError::TooMany { count: out.len() });
            }
            match c.peek() {
                Some(b',') => c.at += 1,
                Some(b'}') => {
                    c.at += 1;
                    break;
                }
                _ => return Err(err(format!("malformed text (at byte {})", c.at))),
            }
        }
    }
    c.ws();
    if c.at != c.b.len() {
        return Err(err("malformed text (something after the closing brace)"));
    }
    Ok(out)
}
