//! Parsers for swarm files and faults files (PRISM module syntax inside the
//! PSV-style envelope of the seed's Section 5). Engine keywords (`agent`,
//! `module`, `endmodule`, `label`, ...) are contextual identifiers.

use crate::lang::lexer::Tok;
use crate::lang::{parse_type, Constants, Expr, LangResult, Parser, Source, Span, TypeSyntax};

/// The three communication patterns of Definition 4 / Definition 6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActionType {
    Asynchronous,
    AgentEnvironment,
    GlobalSynchronous,
}

impl ActionType {
    pub fn keyword(self) -> &'static str {
        match self {
            ActionType::Asynchronous => "asynchronous",
            ActionType::AgentEnvironment => "agentEnvironment",
            ActionType::GlobalSynchronous => "globalSynchronous",
        }
    }
}

/// `name : type init e;`
#[derive(Clone, Debug)]
pub struct VarSyntax {
    pub name: String,
    pub span: Span,
    pub ty: TypeSyntax,
    pub ty_span: Span,
    pub init: Option<Expr>,
}

/// One assignment of an update. The typed faults of Section 3 are sugar.
#[derive(Clone, Debug)]
pub enum AssignKind {
    /// `(x' = e)`, and `set(x, e)`.
    Set(Expr),
    /// `invert(b)`
    Invert,
    /// `up(y)`
    Up,
    /// `down(y)`
    Down,
}

#[derive(Clone, Debug)]
pub struct Assign {
    pub var: String,
    pub span: Span,
    pub kind: AssignKind,
}

/// `p : (x'=e) & (y'=f)`; no assignments means `true` (no change).
#[derive(Clone, Debug)]
pub struct Alt {
    pub prob: Option<Expr>,
    pub assigns: Vec<Assign>,
    pub span: Span,
}

/// `[act] guard -> alts;`
#[derive(Clone, Debug)]
pub struct CommandSyntax {
    pub action: Option<(String, Span)>,
    pub guard: Expr,
    pub alts: Vec<Alt>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ModuleSyntax {
    pub name: String,
    pub span: Span,
    pub vars: Vec<VarSyntax>,
    pub commands: Vec<CommandSyntax>,
}

/// A whole swarm file.
#[derive(Clone, Debug, Default)]
pub struct SwarmSyntax {
    pub actions: Vec<(String, Span, ActionType)>,
    pub agents: Vec<ModuleSyntax>,
    pub env: Option<ModuleSyntax>,
    pub labels: Vec<(String, Span, Expr)>,
    pub rewards: Vec<RewardsSyntax>,
}

/// `rewards "name" items endrewards` (PRISM's reward structures).
#[derive(Clone, Debug)]
pub struct RewardsSyntax {
    pub name: String,
    pub span: Span,
    pub items: Vec<RewardItemSyntax>,
}

/// `guard : value;` (a state reward) or `[act] guard : value;` (an action
/// reward, earned when `act` is taken in a state satisfying `guard`).
#[derive(Clone, Debug)]
pub struct RewardItemSyntax {
    /// `Some` for an action reward: the action's name (empty for `[]`).
    pub action: Option<(String, Span)>,
    pub guard: Expr,
    pub value: Expr,
    pub span: Span,
}

/// `(action, guard) -> alts;` of a faults file; `action` is `None` for `_`.
#[derive(Clone, Debug)]
pub struct FaultLine {
    pub action: Option<(String, Span)>,
    pub guard: Expr,
    pub alts: Vec<Alt>,
    pub span: Span,
}

/// One `agent [NAME]` block of a faults file.
#[derive(Clone, Debug)]
pub struct FaultBlock {
    pub template: Option<(String, Span)>,
    pub span: Span,
    pub lines: Vec<FaultLine>,
}

/// Parses a swarm file; constants are evaluated into `consts` as they come.
pub fn parse_swarm(source: &Source, consts: &mut Constants) -> LangResult<SwarmSyntax> {
    let mut p = Parser::new(source)?;
    let mut out = SwarmSyntax::default();
    while !p.at_eof() {
        if p.eat_keyword("mdp") {
            continue;
        }
        let kind = match p.peek_text() {
            "asynchronous" => Some(ActionType::Asynchronous),
            "agentEnvironment" => Some(ActionType::AgentEnvironment),
            "globalSynchronous" => Some(ActionType::GlobalSynchronous),
            _ => None,
        };
        if let (Some(kind), Tok::Ident) = (kind, p.peek()) {
            p.bump();
            p.expect(Tok::Eq)?;
            p.expect(Tok::LBrace)?;
            if p.peek() != Tok::RBrace {
                loop {
                    let (name, span) = p.ident()?;
                    out.actions.push((name, span, kind));
                    if !p.eat(Tok::Comma) {
                        break;
                    }
                }
            }
            p.expect(Tok::RBrace)?;
            p.eat(Tok::Semi);
        } else if p.eat_keyword("const") {
            consts.parse_decl(&mut p)?;
        } else if p.at_keyword("agent") {
            p.bump();
            p.expect_keyword("module")?;
            out.agents.push(parse_module(&mut p)?);
        } else if p.at_keyword("environment") {
            let span = p.bump().span;
            p.expect_keyword("module")?;
            let m = parse_module(&mut p)?;
            if out.env.is_some() {
                return Err(p.error(span, "a swarm file has one environment module"));
            }
            out.env = Some(m);
        } else if p.eat_keyword("label") {
            let (name, span) = p.string()?;
            p.expect(Tok::Eq)?;
            let e = p.expr()?;
            p.expect(Tok::Semi)?;
            out.labels.push((name, span, e));
        } else if p.eat_keyword("rewards") {
            out.rewards.push(parse_rewards(&mut p)?);
        } else {
            return Err(p.unexpected(
                "`asynchronous`, `agentEnvironment`, `globalSynchronous`, `const`, `agent module`, `environment module`, `label` or `rewards`",
            ));
        }
    }
    Ok(out)
}

/// The body of `rewards "name" ... endrewards`, after `rewards`.
fn parse_rewards(p: &mut Parser) -> LangResult<RewardsSyntax> {
    let (name, span) = p.string()?;
    let mut items = Vec::new();
    while !p.eat_keyword("endrewards") {
        if p.at_eof() {
            return Err(p.unexpected(
                "a reward `guard : value;`, `[action] guard : value;` or `endrewards`",
            ));
        }
        let start = p.peek_span();
        let action = if p.eat(Tok::LBracket) {
            let a = match p.peek() {
                Tok::Ident => p.ident()?,
                _ => (String::new(), p.peek_span()),
            };
            p.expect(Tok::RBracket)?;
            Some(a)
        } else {
            None
        };
        let guard = p.expr()?;
        p.expect(Tok::Colon)?;
        let value = p.expr()?;
        p.expect(Tok::Semi)?;
        items.push(RewardItemSyntax {
            action,
            guard,
            value,
            span: start.to(p.prev_span()),
        });
    }
    Ok(RewardsSyntax { name, span, items })
}

fn parse_module(p: &mut Parser) -> LangResult<ModuleSyntax> {
    let (name, span) = p.ident()?;
    let mut m = ModuleSyntax {
        name,
        span,
        vars: Vec::new(),
        commands: Vec::new(),
    };
    loop {
        if p.eat_keyword("endmodule") {
            return Ok(m);
        }
        match p.peek() {
            Tok::LBracket => m.commands.push(parse_command(p)?),
            Tok::Ident if p.peek2() == Tok::Colon => {
                let (vname, vspan) = p.ident()?;
                p.expect(Tok::Colon)?;
                let (ty, ty_span) = parse_type(p)?;
                let init = if p.eat_keyword("init") {
                    Some(p.expr()?)
                } else {
                    None
                };
                p.expect(Tok::Semi)?;
                m.vars.push(VarSyntax {
                    name: vname,
                    span: vspan,
                    ty,
                    ty_span,
                    init,
                });
            }
            _ => {
                return Err(p.unexpected(
                    "a variable declaration, a command `[action] guard -> ...;` or `endmodule`",
                ))
            }
        }
    }
}

fn parse_command(p: &mut Parser) -> LangResult<CommandSyntax> {
    let start = p.expect(Tok::LBracket)?.span;
    let action = if p.peek() == Tok::Ident {
        Some(p.ident()?)
    } else {
        None
    };
    p.expect(Tok::RBracket)?;
    let guard = p.expr()?;
    p.expect(Tok::Arrow)?;
    let alts = parse_alts(p)?;
    p.expect(Tok::Semi)?;
    Ok(CommandSyntax {
        action,
        guard,
        alts,
        span: start.to(p.prev_span()),
    })
}

/// `alt (+ alt)*` where `alt = [prob :] assigns`.
pub fn parse_alts(p: &mut Parser) -> LangResult<Vec<Alt>> {
    let mut alts = Vec::new();
    loop {
        let start = p.peek_span();
        let prob = if starts_assigns(p) {
            None
        } else {
            let e = p.expr()?;
            p.expect(Tok::Colon)?;
            Some(e)
        };
        let assigns = parse_assigns(p)?;
        alts.push(Alt {
            prob,
            assigns,
            span: start.to(p.prev_span()),
        });
        if !p.eat(Tok::Plus) {
            return Ok(alts);
        }
    }
}

fn is_sugar(word: &str) -> bool {
    matches!(word, "invert" | "set" | "up" | "down")
}

/// Whether the next tokens begin an update rather than a probability.
fn starts_assigns(p: &Parser) -> bool {
    match p.peek() {
        // `(x' = ...)` versus a parenthesised probability `(1-p) : ...`.
        Tok::LParen => p.peek2() == Tok::Ident && p.peek_at(2) == Tok::Prime,
        Tok::Ident => {
            (p.peek_text() == "true" && matches!(p.peek2(), Tok::Semi | Tok::Plus))
                || (is_sugar(p.peek_text()) && p.peek2() == Tok::LParen)
        }
        _ => false,
    }
}

fn parse_assigns(p: &mut Parser) -> LangResult<Vec<Assign>> {
    if p.at_keyword("true") {
        p.bump();
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    loop {
        if p.peek() == Tok::Ident && is_sugar(p.peek_text()) {
            let (word, wspan) = p.ident()?;
            p.expect(Tok::LParen)?;
            let (var, _) = p.ident()?;
            let kind = match word.as_str() {
                "invert" => AssignKind::Invert,
                "up" => AssignKind::Up,
                "down" => AssignKind::Down,
                _ => {
                    p.expect(Tok::Comma)?;
                    AssignKind::Set(p.expr()?)
                }
            };
            p.expect(Tok::RParen)?;
            out.push(Assign {
                var,
                span: wspan.to(p.prev_span()),
                kind,
            });
        } else {
            let start = p.expect(Tok::LParen)?.span;
            let (var, _) = p.ident()?;
            p.expect(Tok::Prime)?;
            p.expect(Tok::Eq)?;
            let e = p.expr()?;
            p.expect(Tok::RParen)?;
            out.push(Assign {
                var,
                span: start.to(p.prev_span()),
                kind: AssignKind::Set(e),
            });
        }
        if !p.eat(Tok::And) {
            return Ok(out);
        }
    }
}

/// Parses a faults file: `const` declarations and `agent [NAME]` blocks of
/// lines `(action, guard) -> p1:update1 + ...;` (`_` matches any action).
pub fn parse_faults(source: &Source, consts: &mut Constants) -> LangResult<Vec<FaultBlock>> {
    let mut p = Parser::new(source)?;
    let mut blocks: Vec<FaultBlock> = Vec::new();
    while !p.at_eof() {
        if p.eat_keyword("const") {
            consts.parse_decl(&mut p)?;
        } else if p.at_keyword("agent") {
            let span = p.bump().span;
            let template = if p.peek() == Tok::Ident {
                Some(p.ident()?)
            } else {
                None
            };
            blocks.push(FaultBlock {
                template,
                span,
                lines: Vec::new(),
            });
        } else if p.peek() == Tok::LParen {
            let start = p.bump().span;
            let action = if p.peek() == Tok::Ident && p.peek_text() == "_" {
                p.bump();
                None
            } else {
                Some(p.ident()?)
            };
            p.expect(Tok::Comma)?;
            let guard = p.expr()?;
            p.expect(Tok::RParen)?;
            p.expect(Tok::Arrow)?;
            let alts = parse_alts(&mut p)?;
            p.expect(Tok::Semi)?;
            let line = FaultLine {
                action,
                guard,
                alts,
                span: start.to(p.prev_span()),
            };
            match blocks.last_mut() {
                Some(b) => b.lines.push(line),
                None => return Err(p.error(start, "a fault line must follow an `agent` line")),
            }
        } else {
            return Err(p.unexpected("`agent`, `const` or a fault line `(action, guard) -> ...;`"));
        }
    }
    Ok(blocks)
}
