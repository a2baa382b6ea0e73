/**
 * The Run form's templates for @rjsf/core (docs/ui.md "Run by hand", "a form generated from the
 * input schema"). @rjsf/core's own templates are Bootstrap 3 markup: icon-only buttons drawn with the
 * Glyphicons font (which Arcotheon does not load, so they showed as empty pills) and grid classes.
 * These replace the ones a nested input needs:
 *   - an array is a fieldset with its items in a list and an "Add" button that says to what;
 *   - each item is numbered ("columns 2"), with Move up, Move down and Remove buttons in words,
 *     each named for its item, and the focus follows the item it moved (or the next one on remove);
 *   - the error list names fields in words and is announced.
 * Everything else (inputs, selects, field errors under their field) is @rjsf/core's.
 */
import {
  buttonId,
  descriptionId,
  getTemplate,
  getUiOptions,
  titleId,
  type ArrayFieldItemButtonsTemplateProps,
  type ArrayFieldItemTemplateProps,
  type ArrayFieldTemplateProps,
  type ErrorListProps,
  type FieldPathId,
  type IconButtonProps,
  type ObjectFieldTemplateProps,
  type TemplatesType,
} from '@rjsf/utils';
import type { ReactNode } from 'react';

/** "columns › 2 › name" for a field path (array indexes counted from 1, as people count). */
export function fieldLabel(path: ReadonlyArray<string | number>): string {
  return path.map((p) => (typeof p === 'number' ? String(p + 1) : p)).join(' › ');
}

/** The name of array item `index` of the array at `arrayPath`: "columns 2". */
function itemLabel(fieldPathId: FieldPathId, index: number): string {
  const parent = fieldPathId.path.slice(0, -1);
  const name = parent.length === 0 ? 'Item' : fieldLabel(parent);
  return `${name} ${index + 1}`;
}

/** The id of the array that holds item `fieldPathId` (rjsf ids: `<array id>_<index>`). */
function arrayIdOf(fieldPathId: FieldPathId, index: number): string {
  const suffix = `_${index}`;
  return fieldPathId.$id.endsWith(suffix) ? fieldPathId.$id.slice(0, -suffix.length) : fieldPathId.$id;
}

/** Focuses the first of `ids` that is on the page and enabled, after React has drawn the change. */
function focusSoon(...ids: string[]): void {
  requestAnimationFrame(() => {
    for (const id of ids) {
      const el = document.getElementById(id);
      if (el !== null && !(el as HTMLButtonElement).disabled) {
        el.focus();
        return;
      }
    }
  });
}

function ArrayFieldTemplate(props: ArrayFieldTemplateProps) {
  const { canAdd, className, disabled, fieldPathId, uiSchema, items, onAddClick, readonly, registry, required, schema, title } = props;
  const options = getUiOptions(uiSchema);
  const Description = getTemplate('DescriptionFieldTemplate', registry, options);
  const label = (options.title as string | undefined) ?? title ?? fieldLabel(fieldPathId.path);
  const description = (options.description as string | undefined) ?? schema.description;
  return (
    <fieldset
      className={`${className ?? ''} array-field`}
      id={fieldPathId.$id}
      aria-describedby={description ? descriptionId(fieldPathId) : undefined}
    >
      <legend id={titleId(fieldPathId)}>
        {label}
        {required ? <span className="required"> (required)</span> : null}
      </legend>
      {description ? <Description id={descriptionId(fieldPathId)} description={description} schema={schema} registry={registry} /> : null}
      {items.length === 0 ? (
        <p className="small muted array-empty">None yet.</p>
      ) : (
        <ol className="array-items" aria-label={label}>
          {items}
        </ol>
      )}
      {canAdd === true && (
        <button
          type="button"
          id={buttonId(fieldPathId, 'add')}
          className="small array-add"
          disabled={disabled === true || readonly === true}
          onClick={(event) => {
            onAddClick(event);
            // The new item's first field.
            const next = items.length;
            requestAnimationFrame(() =>
              document.getElementById(`${fieldPathId.$id}_${next}`)?.querySelector<HTMLElement>('input, select, textarea, button')?.focus(),
            );
          }}
        >
          <span aria-hidden="true">+ </span>Add to {label}
        </button>
      )}
    </fieldset>
  );
}

function ArrayFieldItemTemplate(props: ArrayFieldItemTemplateProps) {
  const { children, buttonsProps, hasToolbar, index } = props;
  return (
    <li className="array-item" data-array-item={index}>
      <div className="array-item-body">{children}</div>
      {hasToolbar && (
        <div className="array-item-buttons" role="group" aria-label={`${itemLabel(buttonsProps.fieldPathId, index)}: move or remove`}>
          <ArrayFieldItemButtons {...buttonsProps} />
        </div>
      )}
    </li>
  );
}

function ArrayFieldItemButtons(props: ArrayFieldItemButtonsTemplateProps) {
  const { disabled, readonly, fieldPathId, hasMoveUp, hasMoveDown, hasRemove, hasCopy, index, totalItems } = props;
  const off = disabled === true || readonly === true;
  const name = itemLabel(fieldPathId, index);
  const array = arrayIdOf(fieldPathId, index);
  const at = (i: number, button: 'moveUp' | 'moveDown' | 'remove' | 'copy'): string => `${array}_${i}__${button}`;
  const button = (kind: 'moveUp' | 'moveDown' | 'remove' | 'copy', text: string, enabled: boolean, act: () => void): ReactNode => (
    <button
      type="button"
      id={buttonId(fieldPathId, kind)}
      className={`small${kind === 'remove' ? ' danger' : ''}`}
      aria-label={`${text}: ${name}`}
      disabled={off || !enabled}
      onClick={act}
    >
      {text}
    </button>
  );
  return (
    <>
      {(hasMoveUp || hasMoveDown) &&
        button('moveUp', 'Move up', hasMoveUp, () => {
          props.onMoveUpItem();
          focusSoon(at(index - 1, 'moveUp'), at(index - 1, 'moveDown'));
        })}
      {(hasMoveUp || hasMoveDown) &&
        button('moveDown', 'Move down', hasMoveDown, () => {
          props.onMoveDownItem();
          focusSoon(at(index + 1, 'moveDown'), at(index + 1, 'moveUp'));
        })}
      {hasCopy &&
        button('copy', 'Copy', true, () => {
          props.onCopyItem();
          focusSoon(at(index + 1, 'copy'));
        })}
      {hasRemove &&
        button('remove', 'Remove', true, () => {
          props.onRemoveItem();
          // The item that takes its place, else the one before, else the array's Add button.
          const last = index === totalItems - 1;
          focusSoon(...(last ? [at(index - 1, 'remove')] : [at(index, 'remove')]), `${array}__add`);
        })}
    </>
  );
}

function ObjectFieldTemplate(props: ObjectFieldTemplateProps) {
  const { className, description, fieldPathId, properties, registry, required, schema, title, uiSchema } = props;
  const options = getUiOptions(uiSchema);
  const Description = getTemplate('DescriptionFieldTemplate', registry, options);
  const last = fieldPathId.path[fieldPathId.path.length - 1];
  // An array item is titled by its place ("columns 2"), not rjsf's "columns-2*".
  const legend = typeof last === 'number' ? itemLabel(fieldPathId, last) : fieldPathId.path.length === 0 ? '' : title;
  return (
    <fieldset className={className} id={fieldPathId.$id}>
      {legend !== '' && (
        <legend id={titleId(fieldPathId)}>
          {legend}
          {required === true && typeof last !== 'number' ? <span className="required"> (required)</span> : null}
        </legend>
      )}
      {description ? <Description id={descriptionId(fieldPathId)} description={description} schema={schema} registry={registry} /> : null}
      {properties.filter((p) => !p.hidden).map((p) => p.content)}
    </fieldset>
  );
}

function ErrorList({ errors }: ErrorListProps) {
  return (
    <div className="errors" role="alert">
      <strong>Check {errors.length === 1 ? 'this field' : 'these fields'} before running:</strong>
      <ul>
        {errors.map((error, i) => (
          <li key={`${error.property ?? ''}-${i}`}>{error.stack}</li>
        ))}
      </ul>
    </div>
  );
}

/** A button rjsf draws outside arrays (an object's additional property): text, never an icon font. */
function TextButton(text: string) {
  return function Button({ id, className, disabled, onClick, style }: IconButtonProps) {
    return (
      <button type="button" id={id} className={`small ${className ?? ''}`} disabled={disabled} onClick={onClick} style={style}>
        {text}
      </button>
    );
  };
}

export const RUN_FORM_TEMPLATES: Partial<TemplatesType> = {
  ArrayFieldTemplate,
  ArrayFieldItemTemplate,
  ArrayFieldItemButtonsTemplate: ArrayFieldItemButtons,
  ObjectFieldTemplate,
  ErrorListTemplate: ErrorList,
  ButtonTemplates: {
    AddButton: TextButton('Add'),
    CopyButton: TextButton('Copy'),
    MoveDownButton: TextButton('Move down'),
    MoveUpButton: TextButton('Move up'),
    RemoveButton: TextButton('Remove'),
    ClearButton: TextButton('Clear'),
    SubmitButton: () => null,
  },
};
