//! Rule expressions: comparisons between arithmetic on the adoption's values.
//!
//! A rule reads like `slot-count >= 0` or `size-budget <= slot-count * 2.5`.
//! Value names are kebab-case, so `slot-count-1` is one name; subtraction
//! needs spaces (`slot-count - 1`). Arithmetic is exact (rationals), so
//! `0.1 + 0.2 == 0.3` holds.

use std::fmt;

/// A parsed rule: `left OP right`.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    left: Expr,
    op: Compare,
    right: Expr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compare {
    Ge,
    Le,
    Gt,
    Lt,
    Eq,
    Ne,
}

#[derive(Clone, Debug, PartialEq)]
enum Expr {
    Number(Rational),
    Name(String),
    Neg(Box<Expr>),
    Bin(Box<Expr>, char, Box<Expr>),
}

/// A rule that does not parse: what was expected and where (0-based
/// character offset into the rule text).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at character {}: {message}", position + 1)]
pub struct RuleSyntaxError {
    /// 0-based character offset.
    pub position: usize,
    /// What is wrong.
    pub message: String,
}

/// Why a parsed rule could not be evaluated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RuleEvalError {
    /// The rule names a value the adoption does not have.
    #[error("it names \"{0}\", which is not one of the adoption's values")]
    UnknownName(String),
    /// The rule divides by zero.
    #[error("it divides by zero")]
    DivisionByZero,
    /// The arithmetic grew past what the evaluator holds exactly.
    #[error("its numbers grow too large to compare exactly")]
    Overflow,
}

/// An exact fraction with checked arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rational {
    num: i128,
    den: i128,
}

impl Rational {
    /// `num / den`, reduced. `den` must not be zero.
    pub fn new(num: i128, den: i128) -> Option<Rational> {
        if den == 0 {
            return None;
        }
        let g = gcd(num.unsigned_abs(), den.unsigned_abs()).max(1);
        let g = i128::try_from(g).ok()?;
        let sign = if den < 0 { -1 } else { 1 };
        Some(Rational {
            num: sign * (num / g),
            den: sign * (den / g),
        })
    }

    /// A whole number.
    pub fn int(n: i128) -> Rational {
        Rational { num: n, den: 1 }
    }

    /// The largest whole number not above this.
    pub fn floor(self) -> i128 {
        self.num.div_euclid(self.den)
    }

    /// Whether this is zero or more.
    pub fn is_non_negative(self) -> bool {
        self.num >= 0
    }

    fn add(self, o: Rational) -> Option<Rational> {
        let num = self
            .num
            .checked_mul(o.den)?
            .checked_add(o.num.checked_mul(self.den)?)?;
        Rational::new(num, self.den.checked_mul(o.den)?)
    }
    fn sub(self, o: Rational) -> Option<Rational> {
        self.add(Rational {
            num: o.num.checked_neg()?,
            den: o.den,
        })
    }
    fn mul(self, o: Rational) -> Option<Rational> {
        Rational::new(self.num.checked_mul(o.num)?, self.den.checked_mul(o.den)?)
    }
    fn div(self, o: Rational) -> Option<Option<Rational>> {
        if o.num == 0 {
            return Some(None);
        }
        Some(Rational::new(
            self.num.checked_mul(o.den)?,
            self.den.checked_mul(o.num)?,
        ))
    }
    fn cmp_checked(self, o: Rational) -> Option<std::cmp::Ordering> {
        Some(
            self.num
                .checked_mul(o.den)?
                .cmp(&o.num.checked_mul(self.den)?),
        )
    }
}

impl fmt::Display for Rational {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            return write!(f, "{}", self.num);
        }
        // print as a decimal when it terminates within 6 digits
        let scaled = self.num.checked_mul(1_000_000);
        if let Some(s) = scaled
            && s % self.den == 0
        {
            let micros = s / self.den;
            let sign = if micros < 0 { "-" } else { "" };
            let m = micros.unsigned_abs();
            let frac = format!("{:06}", m % 1_000_000);
            return write!(f, "{sign}{}.{}", m / 1_000_000, frac.trim_end_matches('0'));
        }
        write!(f, "{}/{}", self.num, self.den)
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Rule {
    /// Parses a rule.
    ///
    /// ```
    /// use bevy_container::adoption::expr::{Rule, Rational};
    ///
    /// let rule = Rule::parse("size-budget <= slot-count * 2.5").unwrap();
    /// let ok = rule.holds(&|name: &str| match name {
    ///     "size-budget" => Some(Rational::int(30)),
    ///     "slot-count" => Some(Rational::int(12)),
    ///     _ => None,
    /// });
    /// assert_eq!(ok, Ok(true));
    /// assert_eq!(Rule::parse("slot-count >=").unwrap_err().position, 13);
    /// ```
    pub fn parse(text: &str) -> Result<Rule, RuleSyntaxError> {
        let chars: Vec<char> = text.chars().collect();
        if chars.len() > 4096 {
            return Err(RuleSyntaxError {
                position: 4096,
                message: "the rule is longer than 4096 characters".into(),
            });
        }
        let mut p = Parser { chars, at: 0 };
        let left = p.expr(0)?;
        p.skip_space();
        let op = p.compare()?;
        let right = p.expr(0)?;
        p.skip_space();
        if p.at < p.chars.len() {
            return Err(p.error(format!("unexpected '{}'", p.chars[p.at])));
        }
        Ok(Rule { left, op, right })
    }

    /// The value names the rule uses, in order of appearance.
    pub fn names(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.left.names(&mut out);
        self.right.names(&mut out);
        out
    }

    /// Whether the rule holds for the given values.
    pub fn holds(&self, values: &dyn Fn(&str) -> Option<Rational>) -> Result<bool, RuleEvalError> {
        let l = self.left.eval(values)?;
        let r = self.right.eval(values)?;
        let ord = l.cmp_checked(r).ok_or(RuleEvalError::Overflow)?;
        use std::cmp::Ordering::*;
        Ok(match self.op {
            Compare::Ge => ord != Less,
            Compare::Le => ord != Greater,
            Compare::Gt => ord == Greater,
            Compare::Lt => ord == Less,
            Compare::Eq => ord == Equal,
            Compare::Ne => ord != Equal,
        })
    }
}

impl Expr {
    fn names<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Expr::Number(_) => {}
            Expr::Name(n) => out.push(n),
            Expr::Neg(e) => e.names(out),
            Expr::Bin(a, _, b) => {
                a.names(out);
                b.names(out);
            }
        }
    }

    fn eval(&self, values: &dyn Fn(&str) -> Option<Rational>) -> Result<Rational, RuleEvalError> {
        Ok(match self {
            Expr::Number(r) => *r,
            Expr::Name(n) => values(n).ok_or_else(|| RuleEvalError::UnknownName(n.clone()))?,
            Expr::Neg(e) => {
                let v = e.eval(values)?;
                Rational::int(0).sub(v).ok_or(RuleEvalError::Overflow)?
            }
            Expr::Bin(a, op, b) => {
                let a = a.eval(values)?;
                let b = b.eval(values)?;
                match op {
                    '+' => a.add(b).ok_or(RuleEvalError::Overflow)?,
                    '-' => a.sub(b).ok_or(RuleEvalError::Overflow)?,
                    '*' => a.mul(b).ok_or(RuleEvalError::Overflow)?,
                    _ => a
                        .div(b)
                        .ok_or(RuleEvalError::Overflow)?
                        .ok_or(RuleEvalError::DivisionByZero)?,
                }
            }
        })
    }
}

struct Parser {
    chars: Vec<char>,
    at: usize,
}

const MAX_DEPTH: usize = 64;

impl Parser {
    fn error(&self, message: String) -> RuleSyntaxError {
        RuleSyntaxError {
            position: self.at,
            message,
        }
    }

    fn skip_space(&mut self) {
        while self.at < self.chars.len() && self.chars[self.at].is_whitespace() {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_space();
        self.chars.get(self.at).copied()
    }

    fn compare(&mut self) -> Result<Compare, RuleSyntaxError> {
        let two: String = self.chars[self.at..].iter().take(2).collect();
        let (op, len) = match two.as_str() {
            ">=" => (Compare::Ge, 2),
            "<=" => (Compare::Le, 2),
            "==" => (Compare::Eq, 2),
            "!=" => (Compare::Ne, 2),
            _ if two.starts_with('>') => (Compare::Gt, 1),
            _ if two.starts_with('<') => (Compare::Lt, 1),
            _ => {
                return Err(self.error(
                    "expected a comparison (>=, <=, >, <, ==, !=) between two sides".into(),
                ));
            }
        };
        self.at += len;
        Ok(op)
    }

    // expr := term (('+'|'-') term)*
    fn expr(&mut self, depth: usize) -> Result<Expr, RuleSyntaxError> {
        let mut left = self.term(depth)?;
        while let Some(c @ ('+' | '-')) = self.peek() {
            self.at += 1;
            let right = self.term(depth)?;
            left = Expr::Bin(Box::new(left), c, Box::new(right));
        }
        Ok(left)
    }

    // term := unary (('*'|'/') unary)*
    fn term(&mut self, depth: usize) -> Result<Expr, RuleSyntaxError> {
        let mut left = self.unary(depth)?;
        while let Some(c @ ('*' | '/')) = self.peek() {
            self.at += 1;
            let right = self.unary(depth)?;
            left = Expr::Bin(Box::new(left), c, Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self, depth: usize) -> Result<Expr, RuleSyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error(format!("nested deeper than {MAX_DEPTH}")));
        }
        match self.peek() {
            Some('-') => {
                self.at += 1;
                Ok(Expr::Neg(Box::new(self.unary(depth + 1)?)))
            }
            Some('(') => {
                self.at += 1;
                let inner = self.expr(depth + 1)?;
                if self.peek() != Some(')') {
                    return Err(self.error("expected ')'".into()));
                }
                self.at += 1;
                Ok(inner)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => self.number(),
            Some(c) if c.is_ascii_lowercase() => Ok(self.name()),
            Some(c) => Err(self.error(format!("expected a number or a value name, found '{c}'"))),
            None => Err(self.error("expected a number or a value name, found the end".into())),
        }
    }

    fn number(&mut self) -> Result<Expr, RuleSyntaxError> {
        let start = self.at;
        while self.at < self.chars.len()
            && (self.chars[self.at].is_ascii_digit() || self.chars[self.at] == '.')
        {
            self.at += 1;
        }
        let text: String = self.chars[start..self.at].iter().collect();
        let bad = || RuleSyntaxError {
            position: start,
            message: format!("\"{text}\" is not a number"),
        };
        let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
        if (whole.is_empty() && frac.is_empty()) || frac.contains('.') || text.len() > 30 {
            return Err(bad());
        }
        let digits: i128 = format!("{whole}{frac}").parse().map_err(|_| bad())?;
        let den = 10i128.checked_pow(frac.len() as u32).ok_or_else(bad)?;
        Rational::new(digits, den).map(Expr::Number).ok_or_else(bad)
    }

    fn name(&mut self) -> Expr {
        let start = self.at;
        while self.at < self.chars.len() {
            let c = self.chars[self.at];
            let dash_inside = c == '-'
                && self
                    .chars
                    .get(self.at + 1)
                    .is_some_and(|n| n.is_ascii_lowercase() || n.is_ascii_digit());
            if c.is_ascii_lowercase() || c.is_ascii_digit() || dash_inside {
                self.at += 1;
            } else {
                break;
            }
        }
        Expr::Name(self.chars[start..self.at].iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str, vals: &[(&str, i128)]) -> Result<bool, RuleEvalError> {
        let rule = Rule::parse(text).expect("parses");
        rule.holds(&|n: &str| {
            vals.iter()
                .find(|(k, _)| *k == n)
                .map(|(_, v)| Rational::int(*v))
        })
    }

    #[test]
    fn comparisons_and_arithmetic() {
        assert_eq!(eval("slot-count >= 0", &[("slot-count", 0)]), Ok(true));
        assert_eq!(eval("slot-count > 0", &[("slot-count", 0)]), Ok(false));
        assert_eq!(eval("a - 1 == 4", &[("a", 5)]), Ok(true));
        assert_eq!(eval("(a + 1) * 2 != 12", &[("a", 5)]), Ok(false));
        assert_eq!(eval("0.1 + 0.2 == 0.3", &[]), Ok(true));
        assert_eq!(eval("a / 3 * 3 == a", &[("a", 7)]), Ok(true));
        assert_eq!(eval("-a < 0", &[("a", 7)]), Ok(true));
    }

    #[test]
    fn kebab_names_are_one_name() {
        let rule = Rule::parse("slot-count-1 >= slot-count - 1").unwrap();
        assert_eq!(rule.names(), vec!["slot-count-1", "slot-count"]);
    }

    #[test]
    fn errors_have_positions() {
        assert_eq!(Rule::parse("a >= ").unwrap_err().position, 5);
        assert_eq!(Rule::parse("a b").unwrap_err().position, 2);
        assert_eq!(Rule::parse("(a >= 1").unwrap_err().position, 3);
        assert_eq!(Rule::parse("a >= 1)").unwrap_err().position, 6);
        assert_eq!(Rule::parse("a >= 1.2.3").unwrap_err().position, 5);
        assert_eq!(
            eval("a / 0 > 1", &[("a", 1)]),
            Err(RuleEvalError::DivisionByZero)
        );
        assert_eq!(
            eval("b > 1", &[]),
            Err(RuleEvalError::UnknownName("b".into()))
        );
        let deep = format!("{}1{} > 0", "(".repeat(500), ")".repeat(500));
        assert!(Rule::parse(&deep).is_err());
    }
}
